// The node:test runner through `typestar check SPEC --device URL --format json` (typestar-check/2):
// the spec's whole suite runs ONCE per spec and process, in the CLI, with the check's shared
// prefixes, cache, batching and quiescence double-check, against the purpose served by this process
// over loopback (the same Agent that serves it for learning). Each node:test test then reports its
// transition's entry of the JSON: passed (diagnostics: spec, bound, transition, the assumptions),
// failed (the CLI's message, which after a difference carries the session's proposal; a timing
// failure proposes nothing), passed in update mode (the CLI wrote the spec and it explains the
// answer), not tested / skipped (a skip with the CLI's reason). The CLI decides; this file prints.
'use strict';

const FORMAT = 'typestar-check/2';

/// The arguments of the one check of `run`'s spec (the URL is filled in when the agent listens).
/// What a failing or first run writes is the CLI's (the gtest plugin's rules, docs/runners.md):
/// `--propose` always, `--update` in update mode, `--ci` on CI (it beats update mode); the proposal's
/// provenance names this purpose, not the loopback port it is served on.
function checkArgs(run) {
  const s = run.settings;
  const args = ['check', run.spec, '--device', '', '--format', 'json', '--propose',
    '--device-label', `node:test in-process ${run.def.name}`];
  if (s.update) args.push('--update');
  if (s.ci) args.push('--ci');
  if (s.learner) args.push('--learner', s.learner);
  // auto: the tests at the spec's bound; a first run or a proposal learned raising B (the CLI's --bound auto)
  if (s.bound !== null) args.push('--bound', String(s.bound), '--bound-from', s.boundFrom);
  if (s.timing.tmaxMs !== undefined) args.push('--tmax', String(s.timing.tmaxMs));
  if (s.timing.tminMs !== undefined) args.push('--tmin', String(s.timing.tminMs));
  return args;
}

/// Reads the CLI's answer: the report, or {error} naming what is wrong (never a verdict).
function readReport(r) {
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch (e) {
    return { error: `typestar check exited with ${r.status} and no JSON report (engine check needs a CLI with ` +
                    `\`check --format json\`): ${r.stderr.trim() || r.stdout.trim()}` };
  }
  if (!report || report.format !== FORMAT || !Array.isArray(report.tests))
    return { error: `typestar check answered a report that is not ${FORMAT} (format: ${report && report.format})` };
  return { report };
}

/// This transition's entry of the report (by its name, as the plan and the check both name it: a
/// register automaton may have several transitions of one location and input), or null when the CLI
/// has none.
function entryOf(report, tr) {
  return report.tests.find((x) => x.name === tr.name) ?? null;
}

/// This transition's test from the spec's one `typestar check --format json`: the CLI's status for
/// it, its message when it failed, its reason when it was not tested. A failure the CLI calls a
/// counterexample (or other inputs) carries the session's proposal in its message; update mode
/// passes the tests the written spec explains (`updated`); timing, device, nondeterminism, partition
/// and plan failures propose nothing. A missing entry or a report that is not one fails (never a pass).
async function runChecked(ctx, t) {
  const { run, tr, name, reproduce } = ctx;
  const c = await run.checked();
  const where = `  spec:   ${run.spec}:${tr.line} (state ${tr.state}, input ${tr.input})\n`;
  if (c.error) throw new Error(`typestar: ${name}: no verdict: ${c.error}\n${reproduce}`);
  if (run.crash) {  // after the check: its answers came from a class that crashes
    throw new Error(`typestar: ${name}: no verdict: the class crashed after the check (a device error, not an answer): ` +
                    `${run.crash}\n${reproduce}`);
  }
  const report = c.report;
  const e = entryOf(report, tr);
  if (!e) {
    throw new Error(`typestar: ${name}: no verdict: ${report.tests.length === 0 ? `typestar check failed: ${report.summary}`
      : `the check's report has no test of (${tr.state}, ${tr.input})`}\n${where}${reproduce}`);
  }
  const relies = `Passing is bounded evidence, not a proof. It relies on:\n${(report.assumptions || []).map((a) => `  - ${a}\n`).join('')}`;
  // A late callback the check heard is the session's to judge (a timing failure, or a difference
  // when the spec does not have the callback). One a served device recorded after the check's last
  // query the check never heard: it voids a pass.
  if (e.status === 'passed' && (c.unheard || []).length > 0) {
    throw new Error(`typestar: ${name}: passed in the check, but the device recorded a timing violation after the ` +
                    `check's last query, which voids the pass: ${c.unheard[0]}\n${where}${reproduce}`);
  }
  if (e.status === 'passed' && e.updated) {
    // Update mode: the CLI wrote the spec (keeping the stored names) and it explains this answer.
    if (!run.updateAnnounced) {
      run.updateAnnounced = true;
      process.stdout.write(`typestar: ${report.proposal.report}`);
    }
    process.stdout.write(e.message);
    return;
  }
  if (e.status === 'passed') {
    if (typeof t.diagnostic === 'function') {
      t.diagnostic(`spec: ${run.spec}:${tr.line}, bound B=${report.bound}, transition (${tr.state}, ${tr.input})`);
      for (const line of relies.trimEnd().split('\n')) t.diagnostic(line);
      if (report.timing && report.timing.note) t.diagnostic(`timing: ${report.timing.note}`);
      if (run.settings.timingFrom) t.diagnostic(`(--tmax / --tmin from ${run.settings.timingFrom})`);
    }
    return;
  }
  if (e.status === 'not_tested' || e.status === 'skipped') {
    t.skip(`typestar: ${run.spec}:${tr.line}: state ${tr.state}, input ${tr.input}: not tested: ${e.reason || e.message}`);
    return;
  }
  // The CLI's message as it printed it (trace, what passing relies on); its device is this process's
  // loopback agent, gone after the run: the node --test line reruns the test.
  const m = `${(e.message || `typestar: ${name}: failed (${e.failure})`).trimEnd()}\n` +
    `(${report.device} above was ${run.def.name} served by this test process to \`typestar check\` for this run ` +
    'and is gone; to rerun:)\n' +
    `${reproduce}\n`;
  if (!report.proposal || !['counterexample', 'inputs'].includes(e.failure)) {
    throw new Error(`${m}${e.failure === 'timing' ? 'A timing failure proposes nothing (the protocol may not have changed): '
      : 'No verdict, so nothing is proposed: '}${report.summary}\n`);
  }
  // A difference: the message ends with the session's proposal (what was re-learned, what changed,
  // this test's own transition marked, where it was written and the accept command).
  throw new Error(m);
}

module.exports = { FORMAT, checkArgs, readReport, entryOf, runChecked };
