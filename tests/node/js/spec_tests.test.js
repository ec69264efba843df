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

/// The tests specTests registers, by name: {name: async () => outcome}, outcome {error} or {skip},
/// with {diagnostics} when the test wrote some.
/// `ci`: the CI setting they run under (false: a developer's machine, proposals are written).
function collect(spec, purpose, options = {}, ci = true) {
  const tests = new Map();
  const fake = (name, body) => {
    tests.set(name, async () => {
      let skipped = null;
      const diagnostics = [];
      try {
        await body({ skip: (why) => { skipped = why; }, diagnostic: (line) => { diagnostics.push(line); } });
      } catch (e) {
        return { error: e.message };
      }
      const out = skipped === null ? {} : { skip: skipped };
      if (diagnostics.length > 0) out.diagnostics = diagnostics;
      return out;
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
      if (options.lateCancelOk && j.state === 'ended') return;  // the example's JOB_VERSION=2
      if (j.state !== 'running') throw new Error('not running');
      j.state = 'ended';
      process.nextTick(() => j.emit('cancelled'));
    });
  }
  if (options.closeAfterDone) {
    // The upgrade adds a callback: `close` follows `done` (as zlib streams auto-destroy after `end`),
    // on the next tick, or `closeDelayMs` (3 x tmax) late when `closeAfterDone()` says so.
    const lateNow = options.closeAfterDone;
    p = p.reset((sink) => {
      const j = new EventEmitter();
      j.state = 'idle';
      j.on('done', () => {
        sink.emit('done');
        const late = lateNow();
        if (late) setTimeout(() => sink.emit('close'), options.closeDelayMs ?? 3 * 20);
        else process.nextTick(() => sink.emit('close'));
      });
      j.on('cancelled', () => sink.emit('cancelled'));
      return j;
    }).callback('close');
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

test('the example purpose passes its committed spec: one `typestar check` for the spec, one test per transition, named as in gtest', async () => {
  await withCliLog(async (commands) => {
    const tests = collect(jobSpec, job());
    // In s2 (`done` undelivered) callbacksDrained holds callins back: outside the purpose, unknown in
    // the spec; reported once for the spec as not tested (one skipped test), not one skip each.
    assert.deepStrictEqual([...tests.keys()], ['Job.s0_cancel', 'Job.s0_start', 'Job.s0_wait',
      'Job.s2_wait', 'Job.s3_cancel', 'Job.s3_start', 'Job.s3_wait', 'Job.unknown']);
    const results = await runAll(tests);
    assert.deepStrictEqual(commands().filter((c) => c === 'check'), ['check'], commands().join(' '));
    assert.ok(!commands().includes('learn'), commands().join(' '));
    const unknown = results['Job.unknown'];
    assert.strictEqual(unknown.skip, 'typestar: 2 unknown transition(s) of job.yaml not tested (three-valued spec): ' +
      's2 cancel, s2 start');
    assert.ok(unknown.diagnostics.includes(`not tested: ${jobSpec}:20: state s2, input cancel ` +
      '(purpose: not explored by the learning purpose of Job)'), unknown.diagnostics.join('\n'));
    delete results['Job.unknown'];
    assert.strictEqual(Object.keys(results).length, 7);
    for (const [name, r] of Object.entries(results)) {
      assert.strictEqual(r.error, undefined, `${name}: ${r.error}`);
      assert.strictEqual(r.skip, undefined, name);
      // A pass says what the CLI's check relied on (typestar-check/2 `assumptions`), as diagnostics.
      assert.ok(r.diagnostics.includes('Passing is bounded evidence, not a proof. It relies on:'), name);
      assert.ok(r.diagnostics.some((d) => /every way into a quiet state double-checked with a wait of 3\.0 x tmax/.test(d)), name);
      assert.ok(r.diagnostics.some((d) => /^spec: .*job\.yaml:\d+, bound B=2, transition \(s\d, \w+\)$/.test(d)), name);
    }
  });
});

test('nested: one describe per state, holding its transitions\' tests by their names', async () => {
  const names = [];
  const bodies = [];
  let within = null;
  const fakeTest = (name, body) => {
    names.push(within ? `${within} > ${name}` : name);
    bodies.push(body);
  };
  const fakeDescribe = (name, body) => {
    within = name;
    body();
    within = null;
  };
  const saved = process.env.CI;
  process.env.CI = '1';
  try {
    specTests(jobSpec, job(), { nested: true, test: fakeTest, describe: fakeDescribe });
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
  assert.deepStrictEqual(names, ['Job.s0 > s0_cancel', 'Job.s0 > s0_start', 'Job.s0 > s0_wait', 'Job.s2 > s2_wait',
    'Job.s3 > s3_cancel', 'Job.s3 > s3_start', 'Job.s3 > s3_wait', 'Job.unknown']);
  for (const body of bodies.slice(0, -1)) await body({ skip: assert.fail, diagnostic: () => {} });  // they pass
});

/// Lamp: on, off, blink (a `flicker` at once). With `lateMs`, off() also lets a `flicker` come
/// lateMs later (cleared by the next callin or the teardown): a late callback after `on off`, a way
/// into the quiet state s0 that is not s0's access word (the empty word).
function lamp(lateMs) {
  return new LearningPurpose('Lamp')
    .reset((sink) => ({ state: 'off', timer: null, sink }))
    .teardown((l) => clearTimeout(l.timer))
    .callin('on', (l) => {
      clearTimeout(l.timer);
      if (l.state !== 'off') throw new Error('on');
      l.state = 'on';
    })
    .callin('off', (l) => {
      clearTimeout(l.timer);
      if (l.state !== 'on') throw new Error('off');
      l.state = 'off';
      if (lateMs > 0) l.timer = setTimeout(() => l.sink.emit('flicker'), lateMs);
    })
    .callin('blink', (l) => {
      clearTimeout(l.timer);
      if (l.state !== 'on') throw new Error('blink');
      process.nextTick(() => l.sink.emit('flicker'));
    })
    .callback('flicker').settle(() => settle.turns()).timing({ tmaxMs: 20, tminMs: 0 }).quietIsStable()
    .restrictTo(callbacksDrained()).build();
}

const lampSpec = `typestar: 2
kind: typestate
name: Lamp
callins: [blink, "off", "on"]
callbacks: [flicker]
initial: s0
bounds: {distinguisher: 2}
timing: {tmax_ms: 20, tmin_ms: 0}
assumptions: {quiet_is_stable: true}
states:
  s0:
    callins:
      "on": s2
  s2:
    callins:
      blink: s3
      "off": s0
  s3:
    callbacks:
      flicker: s2
    unknown:
      blink: {source: purpose, reason: "not explored"}
      "off": {source: purpose, reason: "not explored"}
      "on": {source: purpose, reason: "not explored"}
`;

test('a callback 2.5 x tmax late after a way into a quiet state other than its access word fails as timing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-lamp-'));
  const spec = path.join(dir, 'lamp.yaml');
  fs.writeFileSync(spec, lampSpec);
  try {
    // The prompt lamp passes (the spec is its own): the double-check is not a false alarm.
    const prompt = await runAll(collect(spec, lamp(0)));
    for (const [name, r] of Object.entries(prompt)) assert.strictEqual(r.error, undefined, name);
    // The late one: the check's double-check of s0 (`on off`, then a wait of 3 x tmax) hears the
    // spec's own `flicker`: "tmax too small", a timing failure in the test that relied on s0's quiet
    // wait, which proposes nothing.
    const late = await runAll(collect(spec, lamp(50)));
    const failed = Object.entries(late).filter(([, r]) => r.error);
    assert.strictEqual(failed.length, 1, JSON.stringify(late, null, 1));
    const m = failed[0][1].error;
    assert.match(m, /a timing failure of the device [^\n]*, not a protocol difference \(no spec is proposed\)/, m);
    assert.match(m, /tmax too small[^]*'flicker'/, m);
    assert.match(m, /A timing failure proposes nothing/, m);
    assert.doesNotMatch(m, /does not conform|Re-learned/, m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
  // The session's proposal, learned from scratch (the inputs differ), printed as the CLI gave it.
  assert.match(r.error, /re-learned from the purpose: L# \(from scratch: the device's inputs are not the spec's\)[^\n]*: 3 states/);
  assert.match(r.error, /CI is set, so nothing was written/);
});

test('a device that answers one word in two ways fails with both answers, never a verdict', async () => {
  const purpose = job((p) => p, { silentVariant: true });
  const results = await runAll(collect(jobSpec, purpose));
  const r = results['Job.s2_wait'];
  assert.ok(r.error, 'the test passed');
  assert.match(r.error, /variants of callin 'start' behave differently/, r.error);
  assert.match(r.error, /No verdict, so nothing is proposed/, r.error);
  assert.doesNotMatch(r.error, /does not conform|Re-learned/, r.error);
});

test('a callback later than tmax on every run fails as timing, never as an answer, and proposes nothing', async () => {
  // `done` comes 60 ms after start: a wait of tmax = 20 ms answers quiet, then the callback arrives.
  await withCliLog(async (commands) => {
    const results = await runAll(collect(jobSpec, job((p) => p, { lateMs: 60 })));
    assert.ok(results['Job.s2_wait'].error, 'the test passed');
    const failed = Object.values(results).filter((r) => r.error);
    for (const r of failed) {
      assert.match(r.error, /tmax too small/, r.error);
      assert.match(r.error, /A timing failure proposes nothing/, r.error);
      assert.doesNotMatch(r.error, /does not conform|Re-learned/, r.error);
    }
    assert.ok(!commands().includes('learn'), commands().join(' '));
  });
});

/// The failing test of an upgrade that adds `close` after `done`, `close` being 3 x tmax late while
/// `cold()` says so (`delayMs` late: 3 x tmax by default): [name, the message up to the proposal,
/// the proposal's part].
async function upgradeAddingClose(cold, delayMs = undefined) {
  // The stored spec has `close` among its callbacks (the purpose listens to it) but no transition
  // answering it.
  const { dir, spec } = scratchSpec((text) => text.replace('callbacks: [cancelled, done]', 'callbacks: [cancelled, close, done]'));
  try {
    const results = await runAll(collect(spec, job((p) => p, { closeAfterDone: cold, closeDelayMs: delayMs })));
    const failed = Object.entries(results).filter(([, r]) => r.error);
    assert.ok(failed.length > 0, JSON.stringify(results, null, 1));
    const [name, first] = failed[0];
    const at = first.error.search(/Re-learn/);
    assert.ok(at > 0, `${name}: no proposal part:\n${first.error}`);
    const check = first.error.slice(0, at);
    assert.doesNotMatch(check, /raise tmax|tmax too small|timing failure/, `${name}:\n${first.error}`);
    assert.match(check, /the device does not conform to the spec/, first.error);
    assert.match(check, /wait +quiet +close +<- differs/, first.error);
    return [name, check, first.error.slice(at)];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('an upgrade that adds a callback, late on the first two runs, fails as a protocol change with trace and diff', async () => {
  let cold = 2;
  const [name, , proposal] = await upgradeAddingClose(() => cold-- > 0);
  assert.match(proposal, /^Re-learned with L#/, `${name}:\n${proposal}`);
  assert.match(proposal, /Stored -> proposed \(typestar diff\)/, proposal);
  assert.match(proposal, /close/, proposal);
});

test('an upgrade whose new callback is late through a long cold start fails as a protocol change and says why no proposal', async () => {
  // 3 x tmax late the first 14 times (with the example's suite the last of them ends a word on a
  // quiet wait, so the old runner saw "tmax too small" first): the check reports the difference;
  // at the proposal the device still answers the word quiet at tmax (or breaks the timing on each
  // run: a violation the agent hears in its quiet grace), so a spec learned at this tmax would not
  // have `close`: the proposal says so and what to do, never a spec without `close`.
  let cold = 14;
  const [name, , proposal] = await upgradeAddingClose(() => cold-- > 0);
  assert.match(proposal, /^Re-learning failed: the counterexample 'start wait wait' answers 'ok done close' only with a longer wait/,
               `${name}:\n${proposal}`);
  assert.match(proposal, /at the tmax in force \(20 ms\) the device (answered 'ok done quiet'|broke the timing on every run)/, proposal);
  assert.match(proposal, /Raise tmax \(--tmax MS, TYPESTAR_TMAX\) to learn the proposal/, proposal);
});

test('a callback the spec does not have, late on every run, is a difference the double-check hears, never timing', async () => {
  // `close` is 2 x tmax late on every run: the session's re-runs all break the timing, and its
  // double-check's wait of 3 x tmax hears a callback the spec does not have: a protocol difference.
  // No proposal: at tmax the device answers the word quiet, so a spec learned there would lack `close`.
  const [name, check, proposal] = await upgradeAddingClose(() => true, 2 * 20);
  assert.match(check, /callback 'close', which the spec does not have, heard by a wait of 3\.0 x tmax/, `${name}:\n${check}`);
  assert.match(proposal, /^Re-learning failed: the counterexample 'start wait wait' answers 'ok done close' only with a longer wait/,
               `${name}:\n${proposal}`);
  assert.match(proposal, /Raise tmax \(--tmax MS, TYPESTAR_TMAX\) to learn the proposal/, proposal);
});

test('a spec of another class is refused before any re-learning, also in update mode, never with accept --force', async () => {
  const { dir, spec } = scratchSpec((text) => text.replace('name: Job', 'name: OtherJob'));
  try {
    const before = fs.readFileSync(spec, 'utf8');
    const tests = collect(spec, job(), { update: true }, false);
    assert.deepStrictEqual([...tests.keys()], ['OtherJob.purpose']);
    const started = Date.now();
    const r = await tests.get('OtherJob.purpose')();
    assert.ok(Date.now() - started < 5000, 'it took long enough to have re-learned');
    assert.match(r.error, /the spec is of class 'OtherJob', the purpose drives 'Job'/);
    assert.match(r.error, /Check that the test names the right spec file and the right purpose/);
    assert.doesNotMatch(r.error, /--force|typestar accept|[Rr]e-learn/);
    assert.strictEqual(fs.readFileSync(spec, 'utf8'), before);
    assert.deepStrictEqual(fs.readdirSync(dir), ['job.yaml']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/// TYPESTAR_CLI as a wrapper that logs each command (its first argument) to `log`, for `body`.
async function withCliLog(body) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-cli-log-'));
  const log = path.join(dir, 'commands.log');
  const wrapper = path.join(dir, 'typestar');
  const real = process.env.TYPESTAR_CLI;
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$1" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  process.env.TYPESTAR_CLI = wrapper;
  try {
    return await body(() => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []));
  } finally {
    process.env.TYPESTAR_CLI = real;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a difference fails its test with the CLI\'s trace, the proposal and its diff', async () => {
  await withCliLog(async (commands) => {
    const results = await runAll(collect(jobSpec, job((p) => p, { lateCancelOk: true })));
    const failed = Object.entries(results).filter(([, r]) => r.error).map(([name]) => name);
    assert.deepStrictEqual(failed, ['Job.s3_cancel']);
    const m = results['Job.s3_cancel'].error;
    assert.match(m, /typestar: Job\.s3_cancel: the device does not conform to the spec\./);
    assert.match(m, /3 +s3 +cancel +err +ok +<- differs/);
    assert.match(m, /Reproduce: node --test --test-name-pattern='\^Job\\\.s3_cancel\$' /);
    assert.match(m, /Re-learned with L# \(seeded with the stored spec\)[^\n]*: 3 states/);
    assert.match(m, /s3 cancel: err  =>  -> s3   <- this test's transition/);
    assert.match(m, /Stored -> proposed \(typestar diff\):/);
    assert.deepStrictEqual(commands().filter((c) => c === 'check'), ['check']);
  });
});

/// A copy of the example's spec in a scratch directory, with `edit` applied to its text.
function scratchSpec(edit = (text) => text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-accept-'));
  const spec = path.join(dir, 'job.yaml');
  fs.writeFileSync(spec, edit(fs.readFileSync(jobSpec, 'utf8')));
  return { dir, spec };
}

const quoted = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/// Runs the `typestar accept ...` line printed in `message` (the first one) in `dir`: its result.
function runAcceptLine(message) {
  const line = message.split('\n').find((l) => /^ +typestar accept /.test(l));
  assert.ok(line, message);
  const args = line.trim().split(/ +/).slice(1);
  return { line: line.trim(), r: require('child_process').spawnSync(process.env.TYPESTAR_CLI, args, { encoding: 'utf8' }) };
}

test('the accept command it prints has --force exactly when accept needs it (another alphabet), and works as printed', async () => {
  const { dir, spec } = scratchSpec();
  try {
    // The purpose lacks `cancel`: the proposal has other callins, which accept takes only with --force.
    const r = await collect(spec, job((p) => p, { noCancel: true }), {}, false).get('Job.purpose')();
    assert.match(r.error, new RegExp(`\\n    typestar accept ${quoted(spec)}( --auto)? --force\\n`));
    assert.ok(fs.existsSync(path.join(dir, 'job.proposed.yaml')));
    const { line, r: a } = runAcceptLine(r.error);
    assert.strictEqual(a.status, 0, `${line}: ${a.stderr}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the accept command it prints has no --force for a proposal over the same alphabet, and works as printed', async () => {
  // The stored spec claims start works again after done: the class refuses it; same class and alphabet.
  const { dir, spec } = scratchSpec((text) => text.replace('  s3: {}', '  s3:\n    callins:\n      start: s3'));
  try {
    const r = await collect(spec, job(), {}, false).get('Job.s3_start')();
    assert.match(r.error, /does not conform to the spec/);
    assert.match(r.error, new RegExp(`\\n    typestar accept ${quoted(spec)}( --auto)?\\n`));
    assert.doesNotMatch(r.error, /--force/);
    const { line, r: a } = runAcceptLine(r.error);
    assert.strictEqual(a.status, 0, `${line}: ${a.stderr}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every decision after a failure comes from the one `typestar check` (no learn, diff, export or accept of its own)', async () => {
  const { dir, spec } = scratchSpec((text) => text.replace('  s3: {}', '  s3:\n    callins:\n      start: s3'));
  try {
    await withCliLog(async (commands) => {
      const results = await runAll(collect(spec, job(), {}, false));
      const failed = Object.entries(results).filter(([, r]) => r.error);
      assert.ok(failed.length > 0, JSON.stringify(results, null, 1));
      // Each failure says whether its own transition changed (the session's per-test verdict).
      for (const [name, r] of failed) {
        assert.match(r.error, name === 'Job.s3_start' ? /s3 start: -> s3  =>  err   <- this test's transition/
          : /This test's transition \(s\d, \w+\) did not change: its words pass through a transition that did\./, `${name}: ${r.error}`);
      }
      // Only the spec's check and its loading: nothing decided by another CLI call.
      assert.deepStrictEqual(commands().filter((c) => !['suite', 'export'].includes(c)), ['check'], commands().join(' '));
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('update mode keeps the stored state names, writes the spec and passes, through the CLI', async () => {
  // The team's names (Idle, Running, Ended) and a wrong claim: start works again after done.
  const { dir, spec } = scratchSpec((text) => text.replace('  s3: {}', '  s3:\n    callins:\n      start: s3')
    .replace(/\bs0\b/g, 'Idle').replace(/\bs2\b/g, 'Running').replace(/\bs3\b/g, 'Ended'));
  try {
    await withCliLog(async (commands) => {
      const results = await runAll(collect(spec, job(), { update: true }, false));
      for (const [name, r] of Object.entries(results)) assert.strictEqual(r.error, undefined, `${name}: ${r.error}`);
      assert.deepStrictEqual(commands().filter((c) => !['suite', 'export'].includes(c)), ['check'], commands().join(' '));
    });
    const written = fs.readFileSync(spec, 'utf8');
    for (const name of ['Idle:', 'Running:', 'Ended']) assert.ok(written.includes(name), written);
    assert.doesNotMatch(written, /start: Ended/);
    assert.deepStrictEqual(fs.readdirSync(dir), ['job.yaml']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a first run is the CLI\'s: learned at the bound asked, with the accept command that works', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-first-'));
  const spec = path.join(dir, 'job.yaml');
  try {
    await withCliLog(async (commands) => {
      const tests = collect(spec, job(), { bound: 3 }, false);
      assert.deepStrictEqual([...tests.keys()], ['job.learn']);
      const r = await tests.get('job.learn')();
      assert.match(r.error, /the spec does not exist, so it was learned/);
      assert.match(r.error, /from node:test in-process Job with L# \(from scratch: no spec yet\)[^\n]*bound 3\./);
      assert.deepStrictEqual(commands(), ['check'], commands().join(' '));
    });
    const { line, r: a } = runAcceptLine((await collect(spec, job(), { bound: 3 }, false).get('job.learn')()).error);
    assert.strictEqual(a.status, 0, `${line}: ${a.stderr}`);
    assert.match(fs.readFileSync(spec, 'utf8'), /device: "node:test in-process Job"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('tmax over the purpose\'s own (option or TYPESTAR_TMAX) is used, named, and told apart from the spec\'s', async () => {
  // job.yaml records tmax 20 ms, as the purpose says: nothing to tell apart.
  const line = (r) => r.diagnostics.find((d) => d.includes('every callback arrives within tmax='));
  const plain = (await runAll(collect(jobSpec, job())))['Job.s0_start'];
  assert.ok(line(plain).includes('tmax=20 ms (quiescence; every way'), line(plain));
  assert.ok(!plain.diagnostics.some((d) => d.startsWith('timing: ')), plain.diagnostics.join('\n'));
  // The CLI's check waits with it, names the purpose's own and the spec's; the runner names the setting.
  const option = (await runAll(collect(jobSpec, job(), { tmax: 60 })))['Job.s0_start'];
  assert.strictEqual(option.error, undefined);
  assert.ok(line(option).includes('tmax=60 ms (quiescence; tmax 60 ms set by --tmax 60 (the device\'s own: tmax 20 ms, ' +
    'tmin 0 ms); every way'), line(option));
  assert.ok(option.diagnostics.some((d) => /^timing: .*the tests ran with tmax 60 ms, the spec declares 20 ms/.test(d)),
    option.diagnostics.join('\n'));
  assert.ok(option.diagnostics.includes('(--tmax / --tmin from option tmax: 60)'), option.diagnostics.join('\n'));
  process.env.TYPESTAR_TMAX = '45';
  try {
    const env = (await runAll(collect(jobSpec, job(), { tmax: 60 })))['Job.s0_start'];  // the environment wins
    assert.ok(line(env).includes('tmax=45 ms (quiescence; tmax 45 ms set by --tmax 45 (the device\'s own: tmax 20 ms, '),
      line(env));
    assert.ok(env.diagnostics.includes('(--tmax / --tmin from TYPESTAR_TMAX=45)'), env.diagnostics.join('\n'));
  } finally {
    delete process.env.TYPESTAR_TMAX;
  }
  const bad = await runAll(collect(jobSpec, job(), { tmin: 'soon' }));
  assert.ok(Object.values(bad).some((r) => r.error && r.error.includes('option tmin: soon: milliseconds from 0 to 3600000')),
    JSON.stringify(bad));
});

test('engine \'local\' (option or TYPESTAR_ENGINE) is deprecated: one warning per process, then the check engine runs', async () => {
  // No other test of this file asks for 'local': the warning is still due in this process.
  const warnings = [];
  const write = process.stderr.write;
  process.stderr.write = (chunk, ...rest) => {
    if (String(chunk).includes("engine 'local'")) warnings.push(String(chunk));
    return write.call(process.stderr, chunk, ...rest);
  };
  try {
    await withCliLog(async (commands) => {
      const results = await runAll(collect(jobSpec, job(), { engine: 'local' }));
      process.env.TYPESTAR_ENGINE = 'local';
      try {
        collect(jobSpec, job());  // registered again, the environment's 'local': no second warning
      } finally {
        delete process.env.TYPESTAR_ENGINE;
      }
      // The check engine ran: the spec's one `typestar check`, every test passing with its diagnostics.
      assert.deepStrictEqual(commands().filter((c) => !['suite', 'export'].includes(c)), ['check'], commands().join(' '));
      for (const [name, r] of Object.entries(results)) {
        assert.strictEqual(r.error, undefined, `${name}: ${r.error}`);
        if (name !== 'Job.unknown')
          assert.ok(r.diagnostics.some((d) => /double-checked with a wait of 3\.0 x tmax/.test(d)), name);
      }
    });
  } finally {
    process.stderr.write = write;
  }
  assert.deepStrictEqual(warnings, ["typestar: engine 'local' is deprecated and removed; the check engine runs (one " +
    '`typestar check --format json` per spec)\n']);
  // Any other engine stays a bad setting.
  const bad = await runAll(collect(jobSpec, job(), { engine: 'remote' }));
  assert.match(bad['job.settings'].error, /option engine=remote: not check or local/);
});
