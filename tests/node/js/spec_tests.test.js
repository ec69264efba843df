// The node:test runner of specs (device/node/lib/spec_tests.js) on what must never become a verdict:
// a spec that does not load (its file and line named), a missing CLI, a purpose whose inputs are not
// the spec's, a device that answers one word in two ways, a callback later than tmax; and on the
// trace format it shares with the gtest plugin. TYPESTAR_CLI: the built CLI (set by ctest). CI is
// set for every run here: nothing is written.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const { specTests, formatTrace } = require(path.join(root, 'device', 'node', 'lib', 'spec_tests'));
const { LearningPurpose, settle, callbacksDrained } = require(path.join(root, 'device', 'node', 'lib', 'purpose'));

const jobSpec = path.join(root, 'examples', 'node_job', 'specs', 'job.yaml');

/// The tests specTests registers, by name: {name: async () => outcome}, outcome {error} or {skip}.
/// `ci`: the CI setting they run under (false: a developer's machine, proposals are written).
function collect(spec, purpose, options = {}, ci = true) {
  const tests = new Map();
  const fake = (name, body) => {
    tests.set(name, async () => {
      let skipped = null;
      try {
        await body({ skip: (why) => { skipped = why; } });
      } catch (e) {
        return { error: e.message };
      }
      return skipped === null ? {} : { skip: skipped };
    });
  };
  const saved = process.env.CI;
  const savedUpdate = process.env.TYPESTAR_UPDATE;
  if (ci) process.env.CI = '1';
  else delete process.env.CI;
  delete process.env.TYPESTAR_UPDATE;
  try {
    specTests(spec, purpose, { ...options, test: fake });
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
    if (savedUpdate !== undefined) process.env.TYPESTAR_UPDATE = savedUpdate;
  }
  return tests;
}

/// Job (examples/node_job) as a purpose, with `change` applied to the builder.
function job(change = (p) => p, options = {}) {
  const { EventEmitter } = require('events');
  const start = (j) => {
    if (j.state !== 'idle') throw new Error('started');
    j.state = 'running';
    const deliver = () => {
      if (j.state !== 'running') return;
      j.state = 'ended';
      j.emit('done');
    };
    if (options.lateMs) setTimeout(deliver, options.lateMs);
    else process.nextTick(deliver);
  };
  let p = new LearningPurpose('Job')
    .reset((sink) => {
      const j = new EventEmitter();
      j.state = 'idle';
      j.on('done', () => sink.emit('done'));
      j.on('cancelled', () => sink.emit('cancelled'));
      return j;
    });
  if (options.silentVariant) {
    // A second variant of `start` that never delivers `done` (compare mode runs both).
    p = p.variant('start', 'normal', start).variant('start', 'silent', (j) => {
      if (j.state !== 'idle') throw new Error('started');
      j.state = 'running';
    });
  } else {
    p = p.callin('start', start);
  }
  if (!options.noCancel) {
    p = p.callin('cancel', (j) => {
      if (j.state !== 'running') throw new Error('not running');
      j.state = 'ended';
      process.nextTick(() => j.emit('cancelled'));
    });
  }
  p = p.callback('done').callback('cancelled').settle(() => settle.turns())
    .timing({ tmaxMs: 20, tminMs: 0 }).quietIsStable().restrictTo(callbacksDrained());
  return change(p).build();
}

async function runAll(tests) {
  const out = {};
  for (const [name, body] of tests) out[name] = await body();
  return out;
}

test('the trace is aligned as typestar::format_trace aligns it', () => {
  assert.strictEqual(formatTrace([
    { state: 's0', input: 'start', expected: 'ok', actual: 'ok' },
    { state: 's2', input: 'wait', expected: 'done', actual: 'done' },
    { state: 's3', input: 'cancel', expected: 'err', actual: 'ok' },
  ]),
  '    step  state  input   expected  actual\n' +
  '    1     s0     start   ok        ok\n' +
  '    2     s2     wait    done      done\n' +
  '    3     s3     cancel  err       ok      <- differs\n');
});

test('the example purpose passes its committed spec: one test per transition, named as in gtest', async () => {
  const tests = collect(jobSpec, job());
  assert.deepStrictEqual([...tests.keys()], ['Job.s0_cancel', 'Job.s0_start', 'Job.s0_wait', 'Job.s2_cancel',
    'Job.s2_start', 'Job.s2_wait', 'Job.s3_cancel', 'Job.s3_start', 'Job.s3_wait']);
  const results = await runAll(tests);
  // In s2 (`done` undelivered) callbacksDrained holds callins back: outside the purpose, unknown, skipped.
  for (const name of ['Job.s2_cancel', 'Job.s2_start']) {
    assert.match(results[name].skip, /is unknown \(purpose: not explored by the learning purpose of Job\): not tested/, name);
    delete results[name];
  }
  for (const [name, r] of Object.entries(results)) assert.deepStrictEqual(r, {}, name);
});

test('a spec that does not load is one failing test naming the file and line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-spec-tests-'));
  const spec = path.join(dir, 'broken.yaml');
  fs.writeFileSync(spec, 'typestar: 1\nname: Job\ncallins: [start]\ncallbacks: []\ninitial: s0\nstates:\n  s0:\n    callins:\n      start: nowhere\n');
  const tests = collect(spec, job());
  assert.deepStrictEqual([...tests.keys()], ['broken.load']);
  const r = await tests.get('broken.load')();
  assert.match(r.error, /does not load; no conformance test ran/);
  assert.match(r.error, new RegExp(`${spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:9`));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a missing typestar CLI is said so, with what to do', async () => {
  const saved = process.env.TYPESTAR_CLI;
  process.env.TYPESTAR_CLI = '/nonexistent/typestar';
  try {
    const tests = collect(jobSpec, job());
    const r = await tests.get('job.load')();
    assert.match(r.error, /the typestar CLI '\/nonexistent\/typestar' was not found: install typestar .* or set TYPESTAR_CLI/);
  } finally {
    process.env.TYPESTAR_CLI = saved;
  }
});

test('a purpose whose inputs are not the spec\'s is one failing test before any word, naming the difference', async () => {
  const tests = collect(jobSpec, job((p) => p, { noCancel: true }));
  assert.deepStrictEqual([...tests.keys()], ['Job.purpose']);
  const r = await tests.get('Job.purpose')();
  assert.match(r.error, /does not match the learning purpose of Job; no word was run/);
  assert.match(r.error, /callins of the spec the purpose does not have: cancel/);
  assert.match(r.error, /re-learned from the purpose \(from scratch: other callins or callbacks\): 3 states/);
  assert.match(r.error, /CI is set, so nothing was written/);
});

test('a device that answers one word in two ways fails with both answers, never a verdict', async () => {
  const purpose = job((p) => p, { silentVariant: true });
  const r = await collect(jobSpec, purpose).get('Job.s2_wait')();
  assert.match(r.error, /answered one word in two ways \(not deterministic\)/);
  assert.match(r.error, /variants of callin 'start' behave differently/);
});

test('a callback later than tmax fails as a device error, never as an answer', async () => {
  // `done` comes 60 ms after start: a wait of tmax = 20 ms answers quiet, then the callback arrives.
  const r = await collect(jobSpec, job((p) => p, { lateMs: 60 })).get('Job.s2_wait')();
  assert.ok(r.error, 'the test passed');
  assert.doesNotMatch(r.error, /does not conform/);
  assert.match(r.error, /^typestar: device Job failed: Job: tmax too small: callback 'done' arrived/);
});

/// A copy of the example's spec in a scratch directory, with `edit` applied to its text.
function scratchSpec(edit = (text) => text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-accept-'));
  const spec = path.join(dir, 'job.yaml');
  fs.writeFileSync(spec, edit(fs.readFileSync(jobSpec, 'utf8')));
  return { dir, spec };
}

const quoted = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the accept command it prints has --force exactly when accept needs it (another alphabet)', async () => {
  const { dir, spec } = scratchSpec();
  try {
    // The purpose lacks `cancel`: the proposal has other callins, which accept takes only with --force.
    const r = await collect(spec, job((p) => p, { noCancel: true }), {}, false).get('Job.purpose')();
    assert.match(r.error, new RegExp(`\\n    typestar accept ${quoted(spec)} --auto --force\\n`));
    assert.match(r.error, /--force: the proposal has another class name, callins or callbacks than the stored spec/);
    assert.ok(fs.existsSync(path.join(dir, 'job.proposed.yaml')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the accept command it prints has no --force for a proposal over the same alphabet', async () => {
  // The stored spec claims start works again after done: the class refuses it; same class and alphabet.
  const { dir, spec } = scratchSpec((text) => text.replace('  s3: {}', '  s3:\n    callins:\n      start: s3'));
  try {
    const r = await collect(spec, job(), {}, false).get('Job.s3_start')();
    assert.match(r.error, /does not conform to the spec/);
    assert.match(r.error, new RegExp(`\\n    typestar accept ${quoted(spec)} --auto\\n`));
    assert.doesNotMatch(r.error, /--force/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
