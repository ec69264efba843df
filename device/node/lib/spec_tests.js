// specTests(SPEC, purpose): a spec becomes `node:test` tests, one per transition of its synchronous
// closure, named like the gtest plugin's cases (`<Spec>.<State>_<symbol>`), run IN-PROCESS against the
// team's learning purpose (a NodeDevice: no HTTP, token or port), with the gtest plugin's rules:
//
// - The words come from the one suite generator, `typestar suite SPEC --format json` (DroidStar
//   Algorithm 2 at the spec's bound), grouped per transition by the CLI as the gtest plugin groups
//   them; a transition whose words are all prefixes of others runs its access word alone.
// - No spec yet: one test `<name>.learn` learns it with the typestar CLI (the one learner; this
//   process serves the purpose to it over loopback for the time of the learning) and writes
//   `<spec>.proposed.yaml` for review (the test fails), or the spec itself in update mode (it passes).
// - `CI` set (not empty, 0, false, no, off): nothing is written; a missing spec fails, naming it.
// - Update mode (TYPESTAR_UPDATE=1, or `--update` on the test file's command line): a failing test
//   re-learns and rewrites the spec; it passes when the written spec explains the device's answer.
// - A failure prints the aligned trace and what passing relies on, as the gtest plugin does, then asks
//   the CLI for the proposal (re-learned, seeded with the stored spec) and the diff, once per spec.
//
// - Settings (the environment wins over the options of specTests, as a command line over code):
//   bound: TYPESTAR_BOUND, else the option `bound` (a number, or 'auto': learning raises the bound
//   until the learned machine does not need it all; a stored spec's suite then runs at its own bound);
//   learner: TYPESTAR_LEARNER, else the option `learner` (lstar or lsharp); update mode:
//   TYPESTAR_UPDATE, `--update`, or the option `update: true`; tmax / tmin over the purpose's own:
//   TYPESTAR_TMAX / TYPESTAR_TMIN, else the options `tmax` / `tmin` (ms), used by the local and the
//   served device, passed to `typestar learn` (recorded in the spec) and named in the assumptions,
//   with the spec's tmax when it differs from the one this run waits with. A bad value is one failing test.
// - A spec of another class, or whose callins or callbacks are not the purpose's, is one failing test
//   `<Spec>.purpose` before any word runs.
// - A crash of the class (an exception thrown outside any callin, a rejected promise, Node's
//   ERR_INTERNAL_ASSERTION) is a device error, as in the agent (device.js watchCrashes): the test
//   fails, the later ones say so without running, and learning stops; never an answer.
//
// The CLI is `typestar` on the PATH, or TYPESTAR_CLI.
'use strict';

const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { Agent } = require('./agent');
const {
  acceptCommand, cliWarnings, needsForce, proposedPath, shellQuote, indent, formatTrace, runCli, cliMissing,
  changedTransitions, changeSummary, writeAtomically,
} = require('./cli');
const { NodeDevice, DeviceError, NondeterminismError, OUTSIDE_PURPOSE, watchCrashes } = require('./device');
const { definitionOf } = require('./purpose');
const { confirmQuiet, newCallbackOf, newCallbackIn, replayLonger, specPath, predict } = require('./quiescence');
const { checkArgs, readReport, runChecked } = require('./check');

/// An environment variable's truth, as the gtest plugin reads CI and TYPESTAR_UPDATE: set,
/// non-empty, and not one of 0, false, no, off.
function envTrue(value) {
  if (value === undefined || value === '') return false;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

/// The run's settings: the environment, else the options of specTests. `errors`: bad values, each
/// naming where it came from. `bound`: a number, 'auto' or null (the CLI's default, or the spec's
/// own bound); `boundFrom`: where it came from, for messages.
function settings(options = {}) {
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
  // Where the words run: 'check' (the default: the CLI's `typestar check --format json`, once per
  // spec, against the purpose served over loopback; lib/check.js) or 'local' (word by word in this
  // process).
  let engine = null;
  if (given(env.TYPESTAR_ENGINE)) engine = env.TYPESTAR_ENGINE;
  else if (given(options.engine)) engine = String(options.engine);
  if (engine !== null && engine !== 'check' && engine !== 'local') {
    errors.push(`${given(env.TYPESTAR_ENGINE) ? 'TYPESTAR_ENGINE' : 'option engine'}=${engine}: not check or local`);
    engine = null;
  }
  // tmax / tmin over the purpose's own (TYPESTAR_TMAX / TYPESTAR_TMIN, else the options tmax /
  // tmin): the local device and the served one wait with them, and `typestar learn` records them.
  const timing = {};
  const timingFrom = [];
  for (const [key, name, option] of [['tmaxMs', 'TYPESTAR_TMAX', 'tmax'], ['tminMs', 'TYPESTAR_TMIN', 'tmin']]) {
    let value = null;
    let from = null;
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

/// The suite of `spec` from `typestar suite --format json`. Throws an Error with the CLI's
/// diagnostics (they name the file, line and symbol) when the spec does not load.
function loadSuite(cli, spec, bound) {
  const args = ['suite', spec, '--format', 'json'];
  if (bound !== null && bound !== 'auto') args.push('--bound', String(bound));  // auto: the spec's own
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw new Error(cliMissing(cli, r.error));
  if (r.status !== 0) throw new Error(`the spec ${spec} does not load; no conformance test ran:\n${r.stderr.trim()}`);
  const suite = JSON.parse(r.stdout);
  if (!Array.isArray(suite.transitions) || suite.transitions.some((t) => t.output === undefined) ||
      !suite.quiet_checks)
    throw new Error(`the typestar CLI '${cli}' is too old: \`typestar suite --format json\` lists no transitions or ` +
                    'no quiet_checks');
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
                           `answer; ${r.agent ? 'the learning stops and nothing is written' : 'no further word of this spec is run'}.\n`);
    }
    if (r.agent) r.agent.harnessError(message);
    if (r.device) r.device.monitor.record(message, 'harnessErrors');
  });
}

/// One spec's tests and their shared state (the device, the proposal, what was double-checked).
class SpecRun {
  constructor(spec, definition, options) {
    this.spec = spec;
    this.def = definition;
    this.options = options;
    this.settings = settings(options);
    this.device = null;
    this.agent = null;         // the agent serving the purpose to the CLI while it learns
    this.crash = null;         // the first crash of the class: every later test fails on it
    this.proposal = null;      // a Promise of {spec, yaml, report, pointer, wroteSpec} or {error}
    this.reportPrinted = false;
    this.confirmed = new Set();  // quiet states double-checked in this process
    this.testFile = process.argv[1] || '';
  }

  makeDevice() {
    const timing = Object.keys(this.settings.timing).length > 0 ? this.settings.timing : undefined;
    return new NodeDevice(this.def, { variants: this.options.variants ?? 'compare', timing });
  }

  theDevice() {
    if (!this.device) this.device = this.makeDevice();
    return this.device;
  }

  /// Serves the purpose over loopback for the time of `body(url, token)` (the CLI learns through it).
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

  /// Learns with the CLI (seeded with the stored spec when there is one) and writes the proposal,
  /// the spec (update mode) or nothing (CI); once per spec in this process.
  propose(bound, seeded = true) {
    if (!this.proposal) this.proposal = this.learn(bound, seeded);
    return this.proposal;
  }

  /// The spec's one `typestar check --format json` run against the purpose served over loopback
  /// (once per spec and process; lib/check.js): {report} or {error}.
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
    // What the served devices recorded, as data the JSON does not carry: their timing violations
    // (a late callback the spec has nowhere is a protocol change), and any the check never heard
    // (after its last query): never dropped.
    return { ...readReport(r), violations: served.flatMap((d) => d.monitor.seen),
             unheard: served.flatMap((d) => d.monitor.pending) };
  }

  /// `seeded`: with the stored spec (`--from`); not when the purpose's inputs are other than the spec's.
  async learn(bound, seeded) {
    const s = this.settings;
    const stored = fs.existsSync(this.spec);
    const proposedYaml = proposedPath(this.spec, 'yaml');
    const proposedDot = proposedPath(this.spec, 'dot');
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-node-'));
    const learned = path.join(scratch, 'learned.yaml');
    try {
      const args = ['learn', '--device', '', '--out', learned];
      if (bound !== null && bound !== undefined) args.push('--bound', String(bound));
      if (stored && seeded) args.push('--from', this.spec);
      if (s.learner) args.push('--learner', s.learner);
      // Recorded in the learned spec's timing (the served device waits with them already).
      if (s.timing.tmaxMs !== undefined) args.push('--tmax', String(s.timing.tmaxMs));
      if (s.timing.tminMs !== undefined) args.push('--tmin', String(s.timing.tminMs));
      let url = '';
      const r = await this.serving((served, token) => {
        url = served;
        args[2] = url;
        return runCli(s.cli, args, { TYPESTAR_DEVICE_TOKEN: token });
      });
      if (this.crash)  // the CLI may have learned on before the crash was seen: nothing it learned counts
        return { error: `the class crashed while it was learned, so nothing was learned or written: ${this.crash}` };
      if (r.status !== 0 || !fs.existsSync(learned))
        return { error: `typestar learn exited with ${r.status}: ${r.stderr.trim() || r.stdout.trim()}` };
      // The provenance names the device, not the loopback port it was served on for the learning:
      // the same answers give the same spec, byte for byte.
      const yaml = fs.readFileSync(learned, 'utf8')
        .replace(`device: ${JSON.stringify(url)}`, `device: ${JSON.stringify(`node:test in-process ${this.def.name}`)}`);
      fs.writeFileSync(learned, yaml);
      const exported = await runCli(s.cli, ['export', learned, '--format', 'json']);
      let proposal = null;
      try {
        proposal = JSON.parse(exported.stdout);
      } catch (e) {
        return { error: `the learned spec does not read back: ${exported.stderr.trim()}` };
      }
      const stateCount = Object.keys(proposal.states).length;
      // What the learning used and did, from the CLI: the bound, the search beyond it, its warnings.
      const learnedBound = proposal.bounds ? proposal.bounds.distinguisher : bound;
      const explored = proposal.provenance && proposal.provenance.explored ? proposal.provenance.explored : '';
      const summary = `${stateCount} states, learned by the typestar CLI at distinguisher bound B=${learnedBound} ` +
        `(asked: ${bound === null || bound === undefined ? "the CLI's default" : `--bound ${bound}`}, from ${s.boundFrom}).\n` +
        (explored ? `Searched beyond the bound: ${explored}.\n` : '') +
        cliWarnings(r.stderr).map((w) => `${w}\n`).join('');
      // `typestar accept` refuses a proposal of another class name, callins or callbacks without --force.
      let force = false;
      if (stored) {
        const current = await runCli(s.cli, ['export', this.spec, '--format', 'json']);
        try {
          force = needsForce(JSON.parse(current.stdout), proposal);
        } catch (e) {
          force = false;  // the stored spec does not load: accept says so itself
        }
      }
      const accept = acceptCommand(this.spec, force);
      // The diff against the stored spec, before update mode rewrites it.
      let diff = '';
      let changed = [];
      if (stored) {
        const d = await runCli(s.cli, ['diff', this.spec, learned]);
        changed = await changedTransitions(s.cli, this.spec, learned);
        diff = d.status === 0 || d.status === 1 ? `Stored -> proposed (typestar diff):\n${indent(d.stdout, '    ')}`
          : `(no diff: ${d.stderr.trim()})\n`;
      }
      let report = '';
      let pointer = '';
      let wroteSpec = false;
      if (s.ci) {
        report = `CI is set, so nothing was written${s.update ? ' (TYPESTAR_UPDATE is ignored on CI)' : ''}. ` +
                 `The proposed spec:\n${indent(yaml, '    ')}`;
        pointer = 'The proposed spec and its diff are printed in full above (first failing test).\n';
      } else if (s.update && !stored) {
        writeAtomically(this.spec, yaml);
        for (const f of [proposedYaml, proposedDot]) fs.rmSync(f, { force: true });
        wroteSpec = true;
        report = `Update mode (TYPESTAR_UPDATE / --update): wrote ${this.spec}.\n`;
        pointer = `Update mode: wrote ${this.spec}.\n`;
      } else if (s.update) {
        // Update mode takes the proposal as `typestar accept` does (the CLI pairs the states and keeps
        // the stored names; new states keep their generated ones).
        writeAtomically(proposedYaml, yaml);
        const a = await runCli(s.cli, ['accept', this.spec, '--auto', ...(force ? ['--force'] : [])]);
        if (a.status !== 0) {
          report = `Update mode (TYPESTAR_UPDATE / --update): \`${accept}\` refused the proposal, so ${this.spec} ` +
                   `was not written (the proposal is ${proposedYaml}):\n${indent(a.stderr.trim(), '    ')}`;
          pointer = `Update mode: the proposal was not accepted (see the first failing test).\n`;
        } else {
          wroteSpec = true;
          report = `Update mode (TYPESTAR_UPDATE / --update): wrote ${this.spec} (${accept}: ${a.stdout.trim()}).\n`;
          pointer = `Update mode: wrote ${this.spec}.\n`;
        }
      } else {
        writeAtomically(proposedYaml, yaml);
        const dot = await runCli(s.cli, ['export', proposedYaml, '--format', 'dot', '--output', proposedDot]);
        const pictures = dot.status === 0 ? proposedDot : `none: ${dot.stderr.trim()}`;
        report = `Proposed spec: ${proposedYaml}\n  (pictures: ${pictures})\n` +
                 `Review it, then accept it (${stored ? 'keeps the stored state names; ' : ''}--auto keeps the generated ` +
                 'names of new states, or choose them with --name NEW=Name):\n' +
                 `    ${accept}\n` +
                 (force ? '  (--force: the proposal has another class name, callins or callbacks than the stored spec)\n' : '') +
                 `or rerun with TYPESTAR_UPDATE=1 (or --update), which writes ${path.basename(this.spec)} itself.\n`;
        pointer = `Proposed spec: ${proposedYaml} (its diff and pictures are in the first failing test's message above)\n` +
                  `Accept it: ${accept}\n`;
      }
      return { yaml, stateCount, summary, report: report + diff, pointer, wroteSpec, changed };
    } catch (e) {
      return { error: e && e.message ? e.message : String(e) };
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  /// How this run's tmax was set, when not the purpose's own, and the spec's when it differs:
  /// "tmax 300 ms set by TYPESTAR_TMAX=300 (the purpose's own: tmax 20 ms, tmin 0 ms); the spec
  /// records tmax=100 ms; " (each part when it applies), else "".
  timingNote() {
    const d = this.theDevice();
    let note = '';
    if (this.settings.timingFrom) {
      const set = [];
      if (this.settings.timing.tmaxMs !== undefined) set.push(`tmax ${d.timing.tmaxMs} ms`);
      if (this.settings.timing.tminMs !== undefined) set.push(`tmin ${d.timing.tminMs} ms`);
      const own = this.def.timing;
      note += `${set.join(', ')} set by ${this.settings.timingFrom} (the purpose's own: tmax ${own.tmaxMs} ms, ` +
              `tmin ${own.tminMs} ms); `;
    }
    const stored = this.specTiming && this.specTiming.tmax_ms;
    if (stored !== undefined && stored !== null && stored !== d.timing.tmaxMs)
      note += `the spec records tmax=${stored} ms, this run waits ${d.timing.tmaxMs} ms; `;
    return note;
  }

  assumptions(suite, skipped) {
    const d = this.theDevice();
    const out = [`the device's states are told apart by words of length <= ${suite.bound} (distinguisher bound B=${suite.bound})`,
      'err is absorbing: nothing after a refused callin is run'];
    if (d.quietIsStable)
      out.push('a wait answered quiet changes nothing (declared by the device): a wait right after a quiet wait is not run');
    out.push(`every callback arrives within tmax=${d.timing.tmaxMs} ms (quiescence; ${this.timingNote()}every way ` +
             `into a quiet state double-checked with a wait of ${suite.quiet_checks.factor} x tmax)`);
    if (skipped.size > 0)
      out.push(`${skipped.size} unknown transition(s) of the spec were not tested (three-valued spec): ${[...skipped].sort().join('; ')}`);
    return `bounded evidence, not a proof. It relies on:\n${out.map((a) => `  - ${a}\n`).join('')}`;
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
  const s = settings(options);
  if (s.errors.length > 0) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.settings`,
      `typestar: bad settings for ${spec}; no conformance test ran:\n${s.errors.map((e) => `  ${e}\n`).join('')}`);
    return;
  }
  let definition;
  try {
    definition = definitionOf(purpose, options.purposeOptions ?? {}, 'the purpose');
  } catch (e) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.purpose`,
      `typestar: the purpose for ${spec} is not usable: ${e.message}`);
    return;
  }
  const run = new SpecRun(spec, definition, options);
  // The suite runs in the CLI, one `typestar check --format json` per spec (lib/check.js), unless
  // TYPESTAR_ENGINE=local / `engine: 'local'` runs it here, word by word.
  run.viaCheck = s.engine !== 'local';
  if (!fs.existsSync(spec)) {
    test(`${fallbackName(spec, options.name)}.learn`, () => runLearn(run));
    return;
  }
  let suite;
  try {
    suite = loadSuite(s.cli, spec, s.bound);
  } catch (e) {
    setUpFailure(test, options, `${fallbackName(spec, options.name)}.load`, `typestar: ${e.message}`);
    return;
  }
  // The spec must be of the purpose's class, callins and callbacks: else one failure, no word run.
  const seen = {};
  const mismatch = purposeMismatch(s.cli, spec, run.theDevice(), seen);
  run.specTiming = seen.timing;
  if (mismatch.length > 0) {
    setUpFailure(test, options, `${suite.test_suite}.purpose`, mismatchMessage(run, mismatch),
      () => runMismatch(run, suite, mismatch));
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

/// How the spec (`typestar export --format json`) and the purpose's device disagree: the class
/// name, callins or callbacks (empty: they agree); the spec not exporting is a difference too.
/// `seen.timing`: the spec's `timing` ({tmax_ms, tmin_ms}), when it has one.
function purposeMismatch(cli, spec, device, seen = {}) {
  const r = spawnSync(cli, ['export', spec, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  let stored;
  try {
    stored = JSON.parse(r.stdout);
  } catch (e) {
    return [`the spec does not export (${r.stderr.trim()})`];
  }
  seen.timing = stored.timing;
  const out = [];
  const minus = (a, b) => a.filter((x) => !b.includes(x));
  const compare = (what, fromSpec, fromPurpose) => {
    const lacks = minus(fromSpec, fromPurpose);
    const adds = minus(fromPurpose, fromSpec);
    if (lacks.length > 0) out.push(`${what} of the spec the purpose does not have: ${lacks.join(', ')}`);
    if (adds.length > 0) out.push(`${what} of the purpose the spec does not have: ${adds.join(', ')}`);
  };
  if (stored.name !== device.name)
    out.push(`the spec is of class '${stored.name}', the purpose drives '${device.name}'`);
  compare('callins', stored.callins || [], device.inputs.filter((i) => i !== 'wait'));
  compare('callbacks', stored.callbacks || [],
    device.outputs.filter((o) => !['ok', 'quiet', 'err', OUTSIDE_PURPOSE].includes(o)));
  return out;
}

/// The one failure of a spec that does not match its purpose. Another class: no re-learning (wrong
/// spec or wrong purpose); other callins or callbacks of the same class: the purpose re-learned from
/// scratch, for review (accepting it needs --force).
function mismatchMessage(run, mismatch) {
  return `typestar: ${run.spec} does not match the learning purpose of ${run.def.name}; no word was run:\n` +
         mismatch.map((x) => `  - ${x}\n`).join('');
}

async function runMismatch(run, suite, mismatch) {
  enter(run);
  let m = mismatchMessage(run, mismatch);
  if (mismatch.some((x) => x.startsWith('the spec is of class') || x.startsWith('the spec does not export'))) {
    m += 'Check that the test names the right spec file and the right purpose.\n';
    throw new Error(m);
  }
  // Other callins or callbacks of the same class: the CLI's check fails on them and proposes the
  // purpose re-learned (from scratch when the inputs differ), with the accept command that takes it.
  const c = await run.checked();
  const p = c.report && c.report.proposal;
  if (!p || p.status === 'error') {
    m += `Re-learning failed: ${c.error || (p ? p.error : c.report.summary)}\n`;
    throw new Error(m);
  }
  m += `If the class really changed, here it is re-learned from the purpose: ${p.summary}${p.report}`;
  if (p.status === 'updated') {
    process.stdout.write(`typestar: ${m}`);
    return;
  }
  throw new Error(m);
}

async function runLearn(run) {
  enter(run);
  const c = await run.checked();
  if (c.error) throw new Error(`typestar: the spec ${run.spec} does not exist, and learning it from ${run.def.name} failed: ${c.error}`);
  const r = c.report;
  const s = run.settings;
  const asked = s.bound === null ? '' : `(The bound was asked by ${s.boundFrom}${s.bound === 'auto'
    ? ": 'auto' is not served by the CLI's first run, which learned at its default bound" : ''}.)\n`;
  if (r.verdict === 'pass') {
    process.stdout.write(`typestar: ${r.summary}${asked}Review and commit it.\n`);
    return;
  }
  throw new Error(`typestar: ${r.summary}${asked}`);
}

async function runTransition(run, suite, tr, t) {
  enter(run);
  const d = run.theDevice();
  const at = `${run.spec}:${tr.line}`;
  const name = `${suite.test_suite}.${tr.name}`;
  if (run.crash)
    throw new Error(`typestar: ${name}: not run: the class crashed in an earlier test (a device error, not an answer): ${run.crash}`);
  // The words of this test; cut before an unknown transition (three-valued specs), as the plugin.
  const unknown = new Map(suite.transitions.filter((x) => x.unknown).map((x) => [`${x.state}\u0000${x.input}`, x]));
  const skipped = new Set();
  let words = tr.tests.map((k) => suite.tests[k]);
  if (words.length === 0) words = [{ ...tr.word, purpose: `state ${tr.state}, input ${tr.input}` }];
  words = words.map((w) => {
    const k = w.inputs.findIndex((input, i) => unknown.has(`${w.states[i]}\u0000${input}`));
    if (k < 0) return w;
    const u = unknown.get(`${w.states[k]}\u0000${w.inputs[k]}`);
    skipped.add(`state ${u.state}, input ${u.input}: unknown (${u.unknown})`);
    return { ...w, inputs: w.inputs.slice(0, k), expected: w.expected.slice(0, k), states: w.states.slice(0, k),
             purpose: `${w.purpose} (cut before an unknown transition)` };
  }).filter((w) => w.inputs.length > 0);
  const ctx = { run, suite, tr, name, skipped };
  if (run.viaCheck) {
    return runChecked({ ...ctx, reproduce: reproduceLine(run, suite, tr), newCallback: (v) => newCallbackIn(suite, v),
                        protocolChange: (change) => failNewCallback(ctx, change) }, t);
  }

  const untested = new Set();  // transitions the device's learning purpose did not let a word take
  for (let n = 0; n < words.length; ++n) {
    const w = words[n];
    let outputs;
    try {
      outputs = (await d.run(w.inputs)).outputs;
    } catch (e) {
      if (e instanceof NondeterminismError)
        throw new Error(`typestar: the device ${d.name} answered one word in two ways (not deterministic):\n  ${e.message}`);
      if (!run.crash && e instanceof DeviceError && /crashed|uncaught exception|unhandled promise rejection/.test(e.message))
        run.crash = e.message;
      const change = run.crash ? null : newCallbackOf(suite, e);
      if (change) return failNewCallback(ctx, change);
      throw new Error(`typestar: device ${d.name} failed: ${e && e.message ? e.message : e}\n` +
                      (run.crash ? 'A crash is a device error, not an answer: no further word of this spec is run.\n' : ''));
    }
    const k = outputs.findIndex((o, i) => o !== w.expected[i]);
    if (k < 0) continue;
    if (outputs[k] === OUTSIDE_PURPOSE) {  // not the class's answer: not tested (never a pass)
      untested.add(`state ${w.states[k]}, input ${w.inputs[k]}`);
      continue;
    }
    // A callback later than tmax makes a `wait` answer quiet too early: give it the double-check's
    // factor x tmax to show up (it is recorded as a violation) before the difference counts as the class's.
    // A late callback the spec has nowhere does not void the difference: both are a protocol change.
    await new Promise((resolve) => setTimeout(resolve, suite.quiet_checks.factor * d.timing.tmaxMs));
    let also = '';
    try {
      checkTiming(d);
    } catch (e) {
      const change = newCallbackOf(suite, e.cause);
      if (!change) throw e;
      const heard = change.kind === 'tmax' ? `${change.afterMs.toFixed(1)} ms after a wait answered quiet` : 'in a long wait';
      also = `(Callback '${change.symbol}', which the spec has nowhere, was also heard ${heard} on ` +
             `'${change.steps.map((x) => x.input).join(' ')}': part of the same protocol change.)\n`;
    }
    return failDifference(ctx, {
      intro: '',
      label: `word ${n + 1} of ${words.length}: ${w.inputs.slice(0, k + 1).join(' ')}  (${w.purpose})`,
      inputs: w.inputs.slice(0, k + 1), states: w.states, expected: w.expected, actual: outputs.slice(0, k + 1), also,
    });
  }
  try {
    await confirmQuiet(run, suite, words);
  } catch (e) {
    const change = newCallbackOf(suite, e);
    if (change) return failNewCallback(ctx, change);
    throw new Error(`typestar: ${name}: device ${d.name} failed the quiescence double-check: ${e && e.message ? e.message : e}\n` +
                    reproduceLine(run, suite, tr));
  }
  try {
    checkTiming(d);  // a violation recorded since (a late callback) voids the pass
  } catch (e) {
    const change = newCallbackOf(suite, e.cause);
    if (change) return failNewCallback(ctx, change);
    throw e;
  }
  if (untested.size > 0) {
    t.skip(`typestar: ${run.spec}:${tr.line}: state ${tr.state}, input ${tr.input}: not tested: the learning purpose ` +
           `does not explore ${[...untested].sort().join('; ')} (it answered ${OUTSIDE_PURPOSE})`);
    return;
  }
  // A pass says what it relied on (as \`typestar check\` prints its assumptions block).
  if (typeof t.diagnostic === 'function') {
    t.diagnostic(`spec: ${at}, bound B=${suite.bound}, transition (${tr.state}, ${tr.input})`);
    for (const line of `Passing is ${run.assumptions(suite, skipped)}`.trimEnd().split('\n')) t.diagnostic(line);
  }
}

/// A callback no transition of the spec answers, heard late (after a `wait` answered quiet) or in
/// the double-check's long wait (`change`: newCallbackOf's violation): a protocol change, reported
/// as one, with its trace and the proposal's diff, in this test. The word that heard it is run once
/// more with its last wait extended to the double-check's factor x tmax, for the trace.
async function failNewCallback(ctx, change) {
  const { run, suite } = ctx;
  const d = run.theDevice();
  const inputs = change.steps.map((s) => s.input);
  let actual = change.steps.map((s) => s.output);
  let how = `it arrived ${change.waitMs ? `within a wait of ${change.waitMs} ms (${suite.quiet_checks.factor} x tmax)` :
    `${change.afterMs.toFixed(1)} ms after a wait of tmax=${d.timing.tmaxMs} ms answered quiet`}`;
  if (change.kind === 'tmax') {
    const waitMs = suite.quiet_checks.factor * d.timing.tmaxMs;
    const replay = await replayLonger(d, inputs, waitMs);
    if (replay && replay[replay.length - 1] === change.symbol) {
      actual = replay;
      how += `; the trace is the word run again with its last wait extended to ${waitMs} ms ` +
             `(${suite.quiet_checks.factor} x tmax)`;
    } else {
      actual = [...actual.slice(0, -1), `${actual[actual.length - 1]}, then ${change.symbol}`];
    }
  }
  const { states, expected } = specPath(suite, inputs);
  let k = actual.findIndex((o, i) => o !== expected[i]);
  if (k < 0) k = inputs.length - 1;
  return failDifference(ctx, {
    intro: `callback '${change.symbol}', which the spec has nowhere: a protocol change, not a timing one (${how}).\n`,
    label: `word: ${inputs.slice(0, k + 1).join(' ')}`,
    inputs: inputs.slice(0, k + 1), states, expected, actual: actual.slice(0, k + 1),
    also: '',
  });
}

/// The failure of a difference (the gtest plugin's message): where, the aligned trace, what passing
/// relies on, the reproduce line, then the proposal re-learned by the CLI, what changed and the diff.
/// Update mode: returns (the test passes) when the written spec explains the device's answer.
async function failDifference(ctx, diff) {
  const { run, suite, tr, name, skipped } = ctx;
  const d = run.theDevice();
  const { inputs: word, actual } = diff;
  const trace = word.map((input, i) => ({ state: diff.states[i], input, expected: diff.expected[i], actual: actual[i] }));
  let m = `typestar: ${name}: the device does not conform to the spec${diff.intro ? `: ${diff.intro}` : '.\n'}` +
    `  spec:   ${run.spec}:${tr.line} (state ${tr.state}, input ${tr.input})\n` +
    `  device: ${d.name} (in-process, this Node)\n` +
    `  ${diff.label}\n\n` +
    `${formatTrace(trace, 4)}\n${diff.also}` +
    `Passing is ${run.assumptions(suite, skipped)}` +
    `${reproduceLine(run, suite, tr)}\n`;
  const p = await run.propose(run.settings.bound ?? suite.bound);
  if (p.error) throw new Error(`${m}Re-learning (seeded with the stored spec, by the typestar CLI) failed: ${p.error}\n`);
  if (p.wroteSpec) {
    // Update mode: the test passes when the written spec explains the device's answer.
    let explained = false;
    try {
      const updated = loadSuite(run.settings.cli, run.spec, null);
      explained = predict(updated, word).every((o, i) => o === actual[i]);
    } catch (e) {
      explained = false;
    }
    if (explained) {
      if (!run.updateAnnounced) {
        run.updateAnnounced = true;
        process.stdout.write(`typestar: ${p.report}`);
      }
      process.stdout.write(`typestar: ${name}: the device's answer on ${word.join(' ')} is in the updated spec.\n`);
      return;
    }
    m += 'Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n';
  }
  m += `Re-learned (seeded with the stored spec): ${p.summary}`;
  m += changeSummary(p.changed, tr.state, tr.input);
  if (!run.reportPrinted) {
    run.reportPrinted = true;
    m += p.report;
  } else {
    m += p.pointer;
  }
  throw new Error(m);
}

/// The line that reruns the one test of `tr` (nested: by its name within its state's describe).
function reproduceLine(run, suite, tr) {
  const name = run.options.nested ? tr.name : `${suite.test_suite}.${tr.name}`;
  return `Reproduce: node --test --test-name-pattern=${shellQuote(`^${name.replace(/\./g, '\\.')}$`)} ${shellQuote(run.testFile)}\n`;
}

/// Throws the device's recorded timing violation (a late or early callback) as a test failure.
function checkTiming(d) {
  try {
    d.checkTiming();
  } catch (e) {
    throw new Error(`typestar: device ${d.name} failed: ${e.message}`, { cause: e });
  }
}

module.exports = { specTests, formatTrace, proposedPath, envTrue, predict };
