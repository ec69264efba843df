// specTests(SPEC, purpose): a spec becomes `node:test` tests, one per transition of its synchronous
// closure, named like the gtest plugin's cases (`<Spec>.<State>_<symbol>`), against the team's
// learning purpose served by this process over loopback to the ONE `typestar check SPEC --device URL
// --format json` of the spec (lib/check.js). The CLI's session decides every verdict, proposal and
// write (the gtest plugin's rules); each test prints its transition's result:
//
// - The tests are the transitions of `typestar suite SPEC --format json` (the one plan, as the gtest
//   plugin groups them); the check runs their words.
// - No spec yet: one test `<name>.learn`: the check learns it (the CLI's first run) and writes
//   `<spec>.proposed.yaml` for review (the test fails), or the spec itself in update mode (it passes).
// - `CI` set (not empty, 0, false, no, off): nothing is written; a missing spec fails, naming it.
// - Update mode (TYPESTAR_UPDATE=1, or `--update` on the test file's command line): the check
//   rewrites the spec; a failing test passes when the written spec explains the device's answer.
// - A failure prints the CLI's message: the aligned trace, what passing relies on, and after a
//   difference the session's proposal and what changed; a timing failure proposes nothing.
// - The option `engine` / TYPESTAR_ENGINE: 'check' (the only engine); 'local' is deprecated (a warning
//   once per process, then the check runs): its word-by-word run and its own judgement are removed.
//
// - Settings (the environment wins over the options of specTests, as a command line over code):
//   bound: TYPESTAR_BOUND, else the option `bound` (a number, or 'auto': learning raises the bound
//   until the learned machine does not need it all; a stored spec's suite then runs at its own bound);
//   learner: TYPESTAR_LEARNER, else the option `learner` (lstar or lsharp); update mode:
//   TYPESTAR_UPDATE, `--update`, or the option `update: true`; tmax / tmin over the purpose's own:
//   TYPESTAR_TMAX / TYPESTAR_TMIN, else the options `tmax` / `tmin` (ms), passed to `typestar check`
//   (recorded in a learned spec, named in the CLI's assumptions); the served device keeps the
//   purpose's own tmax (the CLI sets each wait's timeout) and checks the tmin asked.
//   A bad value is one failing test.
// - A spec of another class, or whose callins or callbacks are not the purpose's, is one failing test
//   `<Spec>.purpose` before any word runs.
// - A register-automaton spec (`kind: register-automaton`) is checked the same way against a data
//   purpose (DataPurpose, lib/data.js): one test per transition of the automaton (`<location>_<input>`),
//   its generalised Algorithm 2 data words built and run by `typestar check`, a failure with its data
//   trace and the proposal, a missing spec learned with SL*. A data device never waits: the options
//   tmax / tmin are settings errors, TYPESTAR_TMAX / TYPESTAR_TMIN are not read.
// - A crash of the class (an exception thrown outside any callin, a rejected promise, Node's
//   ERR_INTERNAL_ASSERTION) is a device error, as in the agent (device.js watchCrashes): the test
//   fails, and so does every test of the spec; never an answer.
//
// The CLI is `typestar` on the PATH, or TYPESTAR_CLI.
'use strict';

const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { Agent, statusOf } = require('./agent');
const { proposedPath, shellQuote, formatTrace, runCli, cliMissing } = require('./cli');
const { watchCrashes } = require('./device');
const { deviceFor } = require('./data');
const { definitionOf } = require('./purpose');
const { checkArgs, readReport, runChecked } = require('./check');

/// An environment variable's truth, as the gtest plugin reads CI and TYPESTAR_UPDATE: set,
/// non-empty, and not one of 0, false, no, off.
function envTrue(value) {
  if (value === undefined || value === '') return false;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

/// The run's settings: the environment, else the options of specTests. `errors`: bad values, each
/// naming where it came from. `bound`: a number, 'auto' or null (the CLI's default, or the spec's
/// own bound); `boundFrom`: where it came from, for messages. `data`: the purpose is a data device,
/// which never waits: TYPESTAR_TMAX / TYPESTAR_TMIN are not read, the options tmax / tmin are errors.
function settings(options = {}, data = false) {
  const env = process.env;
  const errors = [];
  const given = (v) => v !== undefined && v !== null && v !== '';
  let bound = null;
  let boundFrom = 'the default';
  if (given(env.TYPESTAR_BOUND)) {
    bound = env.TYPESTAR_BOUND;
    boundFrom = `TYPESTAR_BOUND=${bound}`;
  } else if (given(options.bound)) {
    bound = String(options.bound);
    boundFrom = `option bound: ${bound}`;
  }
  if (bound !== null && bound !== 'auto' && !/^[0-9]+$/.test(bound)) {
    errors.push(`${boundFrom}: the bound is a non-negative integer or 'auto'`);
    bound = null;
  }
  let learner = '';
  if (given(env.TYPESTAR_LEARNER)) learner = env.TYPESTAR_LEARNER;
  else if (given(options.learner)) learner = String(options.learner);
  if (learner !== '' && learner !== 'lstar' && learner !== 'lsharp') {
    errors.push(`${given(env.TYPESTAR_LEARNER) ? 'TYPESTAR_LEARNER' : 'option learner'}=${learner}: not lstar or lsharp`);
    learner = '';
  }
  // Where the words run: 'check' (the CLI's `typestar check --format json`, once per spec, against
  // the purpose served over loopback; lib/check.js). 'local' (word by word in this process) is
  // deprecated and removed: accepted for one release, with a warning, and the check runs.
  let engine = null;
  if (given(env.TYPESTAR_ENGINE)) engine = env.TYPESTAR_ENGINE;
  else if (given(options.engine)) engine = String(options.engine);
  if (engine !== null && engine !== 'check' && engine !== 'local') {
    errors.push(`${given(env.TYPESTAR_ENGINE) ? 'TYPESTAR_ENGINE' : 'option engine'}=${engine}: not check or local`);
    engine = null;
  }
  // tmax / tmin over the purpose's own (TYPESTAR_TMAX / TYPESTAR_TMIN, else the options tmax /
  // tmin): `typestar check` gets them (a learned spec records them); the served device checks the tmin.
  const timing = {};
  const timingFrom = [];
  for (const [key, name, option] of [['tmaxMs', 'TYPESTAR_TMAX', 'tmax'], ['tminMs', 'TYPESTAR_TMIN', 'tmin']]) {
    let value = null;
    let from = null;
    if (data) {
      if (given(options[option]))
        errors.push(`option ${option}: ${options.purposeName} is a data device (a register automaton), which never waits`);
      continue;
    }
    if (given(env[name])) {
      value = String(env[name]);
      from = `${name}=${value}`;
    } else if (given(options[option])) {
      value = String(options[option]);
      from = `option ${option}: ${value}`;
    }
    if (value === null) continue;
    if (!/^[0-9]+$/.test(value) || Number(value) > 3600000) {
      errors.push(`${from}: milliseconds from 0 to 3600000`);
      continue;
    }
    timing[key] = Number(value);
    timingFrom.push(from);
  }
  return {
    timing,
    timingFrom: timingFrom.join(', '),
    ci: envTrue(env.CI),
    update: envTrue(env.TYPESTAR_UPDATE) || process.argv.includes('--update') || options.update === true,
    cli: env.TYPESTAR_CLI || 'typestar',
    bound,
    boundFrom,
    learner,
    engine,
    errors,
  };
}

/// `engine: 'local'` / TYPESTAR_ENGINE=local: deprecated and removed (the runner decides
/// nothing the session decides); said once per process on stderr, then the check engine runs.
let warnedLocal = false;
function warnLocalEngine() {
  if (warnedLocal) return;
  warnedLocal = true;
  process.stderr.write("typestar: engine 'local' is deprecated and removed; the check engine runs (one " +
                       '`typestar check --format json` per spec)\n');
}

/// Deprecated (kept for one release; the runner no longer uses it): the outputs the spec predicts
/// for `inputs`, from the CLI's transition table (`typestar suite --format json`'s transitions);
/// after an `err` (absorbing), or an unknown or missing transition, every output is `err`.
function predict(suite, inputs) {
  const table = new Map(suite.transitions.map((t) => [`${t.state}\u0000${t.input}`, t]));
  let state = suite.transitions.find((t) => t.access.length === 0)?.state ?? null;
  return inputs.map((input) => {
    const t = state === null ? undefined : table.get(`${state}\u0000${input}`);
    if (!t || t.unknown) {
      state = null;
      return 'err';
    }
    state = t.target;
    return t.output;
  });
}

/// The suite of `spec` from `typestar suite --format json`, with the spec compared with `device`
/// (its `device_mismatch`: the session's verdict on the class, callins and callbacks; the device's
/// status goes to the CLI on stdin). Throws an Error with the CLI's diagnostics (they name the file,
/// line and symbol) when the spec does not load.
function loadSuite(cli, spec, bound, device) {
  const args = ['suite', spec, '--format', 'json', '--device-status', '-'];
  if (bound !== null && bound !== 'auto') args.push('--bound', String(bound));  // auto: the spec's own
  const input = JSON.stringify(statusOf(device, 1));
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 30, input });
  if (r.error) throw new Error(cliMissing(cli, r.error));
  if (r.status !== 0) throw new Error(`the spec ${spec} does not load; no conformance test ran:\n${r.stderr.trim()}`);
  const suite = JSON.parse(r.stdout);
  const typestate = suite.kind === undefined;  // a register automaton's transitions have no single output
  if (!Array.isArray(suite.transitions) || (typestate && suite.transitions.some((t) => t.output === undefined)) ||
      !suite.device_mismatch)
    throw new Error(`the typestar CLI '${cli}' is too old: \`typestar suite --format json --device-status\` lists no transitions ` +
                    'or no device_mismatch');
  return suite;
}

/// The name of the suite when there is no spec to read it from: the file's stem, as the gtest plugin.
function fallbackName(spec, given) {
  const name = (given || path.basename(spec, path.extname(spec))).replace(/[^A-Za-z0-9_.-]/g, '_') || 'spec';
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/// The run whose test is running (node:test runs a file's tests one at a time): a crash of the class
/// (watchCrashes, once per process) is its device error.
let current = null;
let watching = false;

function enter(run) {
  current = run;
  if (watching) return;
  watching = true;
  watchCrashes((message) => {
    const r = current;
    if (!r) return;
    if (!r.crash) {
      r.crash = message;
      // node:test also reports the exception against the running test; this says what it means.
      process.stdout.write(`typestar: ${r.spec}: the class ${r.def.name} crashed (${message}): a device error, not an ` +
                           'answer; every test of this spec fails on it.\n');
    }
    if (r.agent) r.agent.harnessError(message);
  });
}

/// One spec's tests and their shared state (the one check, a crash of the class).
class SpecRun {
  constructor(spec, definition, options) {
    this.spec = spec;
    this.def = definition;
    this.options = options;
    this.settings = settings({ ...options, purposeName: definition.name }, definition.kind === 'data');
    this.agent = null;         // the agent serving the purpose to the CLI's check
    this.crash = null;         // the first crash of the class: every test fails on it
    this.checkRun = null;      // a Promise of the check's {report, unheard} or {error}
    this.testFile = process.argv[1] || '';
  }

  /// The purpose's device, as served to the check: with its own tmax (the CLI's `--tmax` sets each
  /// wait's timeout over the protocol, so the session names the purpose's own tmax beside it) and
  /// the tmin asked (the agent checks tmin against its own).
  makeDevice() {
    const { tminMs } = this.settings.timing;
    const timing = tminMs === undefined ? undefined : { tminMs };
    return deviceFor(this.def, { variants: this.options.variants ?? 'compare', timing });
  }

  /// Serves the purpose over loopback for the time of `body(url, token)` (the CLI checks through it).
  /// `served` (optional): collects the devices the agent makes (one per session).
  async serving(body, served = null) {
    const token = crypto.randomBytes(16).toString('hex');
    const make = () => {
      const d = this.makeDevice();
      if (served) served.push(d);
      return d;
    };
    const agent = new Agent(make, { token, host: '127.0.0.1', port: 0 });
    await agent.start();
    this.agent = agent;
    try {
      return await body(agent.url, token);
    } finally {
      this.agent = null;
      await agent.stop();
    }
  }

  /// The spec's one `typestar check --format json` run against the purpose served over loopback
  /// (once per spec and process; lib/check.js): {report, unheard} or {error}.
  checked() {
    if (!this.checkRun) this.checkRun = this.runCheck();
    return this.checkRun;
  }

  async runCheck() {
    const args = checkArgs(this);
    const served = [];
    const r = await this.serving((url, token) => {
      args[3] = url;
      return runCli(this.settings.cli, args, { TYPESTAR_DEVICE_TOKEN: token });
    }, served);
    if (this.crash) return { error: `the class crashed during the check (a device error, not an answer): ${this.crash}` };
    // A timing violation a served device recorded after the check's last query (the check never
    // heard it): it voids the passes, never dropped.
    return { ...readReport(r), unheard: served.flatMap((d) => d.monitor.pending) };
  }
}

/// Under `node --test --watch`, makes the spec a dependency of this test file, so that saving the
/// spec re-runs the file as saving a required module does. node:test has no public way to add a file
/// to what it watches (`--watch-path` is refused with `--test`); its child processes report each
/// module they load with this message (Node's module loader does so when WATCH_REPORT_DEPENDENCIES is
/// set), and the runner sends the same one for the spec. Outside watch mode it does nothing.
function watchSpec(spec) {
  if (!process.env.WATCH_REPORT_DEPENDENCIES || typeof process.send !== 'function') return;
  try {
    process.send({ 'watch:require': [spec] });
  } catch (e) {
    // the watching parent is gone: nothing to report to
  }
}

/// Registers the one test `name` of a spec that cannot be tested (bad settings, an unusable purpose,
/// a spec that does not load or does not match the purpose): it fails with `message`, or runs `body`.
/// A name pattern (--test-name-pattern, --test-skip-pattern, `only`) may filter it out, and node:test
/// would then exit 0 with no word run: when its body never started, the process says so on stderr
/// and exits 1 (node:test's own tests only: a runner's tests pass options.test).
function setUpFailure(test, options, name, message, body = () => { throw new Error(message); }) {
  let started = false;
  test(name, (...args) => {
    started = true;
    return body(...args);
  });
  if (options.test) return;
  process.once('exit', () => {
    if (started) return;
    process.stderr.write(`${message.trimEnd()}\n(the test ${name} was filtered out by a name pattern, but no ` +
                         'conformance test of this spec can run: failing)\n');
    process.exitCode = 1;
  });
}

/// Registers the tests of `specFile` (a path; relative to the current directory) run against
/// `purpose`: a built definition (LearningPurpose#build()), a LearningPurpose, a function
/// make(options), or a module exporting one of them (as `--purpose ./file.js` of the agent).
/// options: {name (the spec's name when it is learned), bound (first learning), purposeOptions,
/// variants ('compare'), nested (one `describe` per state, `<Spec>.<State>`, holding its transitions'
/// tests by their names `<State>_<symbol>`), test and describe (node:test's, for tests of this runner)}.
function specTests(specFile, purpose, options = {}) {
  const test = options.test ?? require('node:test');
  const spec = path.resolve(specFile);
  watchSpec(spec);
  let definition = null;
  let unusable = null;
  try {
    definition = definitionOf(purpose, options.purposeOptions ?? {}, 'the purpose');
  } catch (e) {
    unusable = e;
  }
  const s = settings({ ...options, purposeName: definition?.name }, definition?.kind === 'data');
  if (s.engine === 'local') warnLocalEngine();
  if (s.errors.length > 0) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.settings`,
      `typestar: bad settings for ${spec}; no conformance test ran:\n${s.errors.map((e) => `  ${e}\n`).join('')}`);
    return;
  }
  if (unusable) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.purpose`,
      `typestar: the purpose for ${spec} is not usable: ${unusable.message}`);
    return;
  }
  const run = new SpecRun(spec, definition, options);
  if (!fs.existsSync(spec)) {
    test(`${fallbackName(spec, options.name)}.learn`, () => runLearn(run));
    return;
  }
  let suite;
  try {
    suite = loadSuite(s.cli, spec, s.bound, run.makeDevice());
  } catch (e) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.load`, `typestar: ${e.message}`);
    return;
  }
  // The spec must be of the purpose's class, callins and callbacks (the session compares them):
  // else one failure, no word run.
  const mismatch = suite.device_mismatch;
  if (mismatch.differences.length > 0) {
    setUpFailure(test, options, `${suite.test_suite}.purpose`, `typestar: ${mismatch.message}`,
      () => runMismatch(run, mismatch));
    return;
  }
  if (options.nested) {
    // One `describe` per state (`<Spec>.<State>`), holding its transitions' tests by their names.
    const describe = options.describe ?? require('node:test').describe;
    const byState = new Map();
    for (const transition of suite.transitions) {
      if (transition.unknown) continue;
      if (!byState.has(transition.state)) byState.set(transition.state, []);
      byState.get(transition.state).push(transition);
    }
    for (const [state, transitions] of byState) {
      describe(`${suite.test_suite}.${state}`, () => {
        for (const transition of transitions) test(transition.name, (t) => runTransition(run, suite, transition, t));
      });
    }
  } else {
    for (const transition of suite.transitions)
      if (!transition.unknown) test(`${suite.test_suite}.${transition.name}`, (t) => runTransition(run, suite, transition, t));
  }
  // Unknown transitions of a three-valued spec: reported once per spec as not tested (never run).
  const unknown = suite.transitions.filter((x) => x.unknown);
  if (unknown.length > 0) {
    test(`${suite.test_suite}.unknown`, (t) => {
      t.diagnostic(`spec: ${spec}`);
      for (const u of unknown) t.diagnostic(`not tested: ${spec}:${u.line}: state ${u.state}, input ${u.input} (${u.unknown})`);
      t.skip(`typestar: ${unknown.length} unknown transition(s) of ${path.basename(spec)} not tested (three-valued spec): ` +
             unknown.map((u) => `${u.state} ${u.input}`).join(', '));
    });
  }
}

/// The one failure of a spec that does not match its purpose (the session's `device_mismatch`).
/// Another class: no re-learning (wrong spec or wrong purpose); other callins or callbacks of the
/// same class: the CLI's check fails on them and proposes the purpose re-learned (from scratch when
/// the inputs differ), with the accept command that takes it.
async function runMismatch(run, mismatch) {
  enter(run);
  let m = `typestar: ${mismatch.message}`;
  if (mismatch.another_class) throw new Error(m);
  const c = await run.checked();
  const p = c.report && c.report.proposal;
  if (!p || p.status === 'error') {
    m += `Re-learning failed: ${c.error || (p ? p.error : c.report.summary)}\n`;
    throw new Error(m);
  }
  m += `If the class really changed, here it is re-learned from the purpose: ${p.summary}${p.report}`;
  if (p.status === 'updated') {
    process.stdout.write(m);
    return;
  }
  throw new Error(m);
}

async function runLearn(run) {
  enter(run);
  const c = await run.checked();
  if (c.error) throw new Error(`typestar: the spec ${run.spec} does not exist, and learning it from ${run.def.name} failed: ${c.error}`);
  const r = c.report;
  // The summary is the session's (with who asked for the bound, --bound-from, and what to do).
  if (r.verdict === 'pass') {
    process.stdout.write(`typestar: ${r.summary}`);
    return;
  }
  throw new Error(`typestar: ${r.summary}`);
}

/// One transition's test: its result in the spec's one check (lib/check.js).
function runTransition(run, suite, tr, t) {
  enter(run);
  const name = `${suite.test_suite}.${tr.name}`;
  return runChecked({ run, suite, tr, name, reproduce: reproduceLine(run, suite, tr) }, t);
}

/// The line that reruns the one test of `tr` (nested: by its name within its state's describe).
function reproduceLine(run, suite, tr) {
  const name = run.options.nested ? tr.name : `${suite.test_suite}.${tr.name}`;
  return `Reproduce: node --test --test-name-pattern=${shellQuote(`^${name.replace(/\./g, '\\.')}$`)} ${shellQuote(run.testFile)}\n`;
}

module.exports = { specTests, formatTrace, proposedPath, envTrue, predict };
