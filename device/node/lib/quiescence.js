// Quiescence in the node:test runner: the double-check of every way into a quiet state (as
// `typestar check` and the gtest plugin confirm_quiescence), and telling a late callback that is a
// timing fault (tmax too small) from one the spec has nowhere (a protocol change: DroidStar's
// callbacks are the alphabet, so a new one is a new transition, never a timing assumption).
'use strict';

const { DeviceError, OUTSIDE_PURPOSE } = require('./device');

/// The states and outputs the spec predicts along `inputs`, from the CLI's transition table
/// (`typestar suite --format json`'s transitions); after an `err` (absorbing), or an unknown or
/// missing transition, every output is `err` and the state null.
function specPath(suite, inputs) {
  const table = new Map(suite.transitions.map((t) => [`${t.state}\u0000${t.input}`, t]));
  let state = suite.transitions.find((t) => t.access.length === 0)?.state ?? null;
  const states = [];
  const expected = inputs.map((input) => {
    states.push(state ?? '-');
    const t = state === null ? undefined : table.get(`${state}\u0000${input}`);
    if (!t || t.unknown) {
      state = null;
      return 'err';
    }
    state = t.target;
    return t.output;
  });
  return { states, expected };
}

/// Outputs the spec predicts for `inputs` (specPath).
function predict(suite, inputs) {
  return specPath(suite, inputs).expected;
}

/// The first timing violation of `error` (a DeviceError's `violations`, lib/device.js) whose callback
/// no transition of the spec answers: a callback heard after a `wait` answered quiet ('tmax') or in
/// the double-check's long wait ('heard'). null when there is none: then a late callback is timing.
function newCallbackOf(suite, error) {
  if (!(error instanceof DeviceError) || !Array.isArray(error.violations)) return null;
  return newCallbackIn(suite, error.violations);
}

/// newCallbackOf over a list of violations (Monitor#record's details).
function newCallbackIn(suite, violations) {
  const answered = new Set(suite.transitions.filter((t) => !t.unknown).map((t) => t.output));
  return violations.find((v) => (v.kind === 'tmax' || v.kind === 'heard') && !answered.has(v.symbol)) ?? null;
}

/// Runs `inputs` once more with their last step, a `wait`, given `waitMs`: the outputs, or null
/// when the device fails (a violation again: it is recorded and thrown later, never dropped).
async function replayLonger(d, inputs, waitMs) {
  const outputs = [];
  try {
    await d.reset();
    for (let i = 0; i < inputs.length; ++i) {
      const last = i === inputs.length - 1 && inputs[i] === 'wait';
      const output = await d.step(inputs[i], last ? waitMs : undefined);
      outputs.push(output);
      if (output === 'err' || output === OUTSIDE_PURPOSE) break;
    }
  } catch (e) {
    return null;
  } finally {
    await d.finish();
  }
  while (outputs.length < inputs.length) outputs.push('err');
  return outputs;
}

/// Double-checks, once per state and process, every quiet `wait` this test's words relied on, as
/// \`typestar check\` and the gtest plugin do (confirm_quiescence): every way into the state that the
/// CLI lists (\`suite --format json\`'s quiet_checks: the state's access word and each transition into
/// it), then a wait of factor x tmax must stay quiet. A callback within it means tmax is too small
/// (the passing answers were not evidence), or, when the spec has that callback nowhere, a protocol
/// difference; either way the test fails.
async function confirmQuiet(run, suite, words) {
  const d = run.theDevice();
  const unknown = new Set(suite.transitions.filter((x) => x.unknown).map((x) => `${x.state}\u0000${x.input}`));
  const callbacks = new Set(suite.transitions.map((x) => x.output));
  const factor = suite.quiet_checks.factor;
  for (const w of words) {
    for (let i = 0; i < w.inputs.length; ++i) {
      const state = w.states[i];
      if (w.inputs[i] !== 'wait' || w.expected[i] !== 'quiet' || run.confirmed.has(state)) continue;
      run.confirmed.add(state);
      for (const check of suite.quiet_checks.words) {
        if (check.state !== state) continue;
        if (check.inputs.some((input, k) => unknown.has(`${check.states[k]}\u0000${input}`))) continue;  // not tested
        const timeout = d.timing.tmaxMs * factor;
        let got = 'quiet';
        const answers = [];
        await d.reset();
        try {
          for (const input of check.inputs) {
            const answer = await d.step(input);
            answers.push(answer);
            if (answer === 'err' || answer === OUTSIDE_PURPOSE) {  // refused, or not explored: nothing to listen to
              got = 'err';
              break;
            }
          }
          if (got !== 'err') got = await d.step('wait', timeout);
        } finally {
          await d.finish();
        }
        if (got === 'quiet' || got === 'err') continue;
        const after = check.inputs.length === 0 ? 'the start' : `'${check.inputs.join(' ')}'`;
        if (!callbacks.has(got)) {
          // Not timing: the spec has this callback nowhere. As data, for the failure's trace and diff.
          const error = new DeviceError(`the device does not conform to the spec: after ${after} (state ${state}), a ` +
            `wait of ${timeout} ms (${factor} x tmax) heard callback '${got}', which the spec does not have ` +
            `(device ${d.name}): a protocol difference, not a timing one`);
          error.violations = [{ kind: 'heard', symbol: got, waitMs: timeout,
            steps: [...check.inputs.map((input, k) => ({ input, output: answers[k] })), { input: 'wait', output: got }] }];
          throw error;
        }
        throw new DeviceError(`tmax too small: after ${after} (a way into quiet state ${state}), a wait of ` +
                              `tmax=${d.timing.tmaxMs} ms was answered quiet, but callback '${got}' arrived within ` +
                              `${timeout} ms (device ${d.name}); raise tmax so that every callback arrives within it`);
      }
    }
  }
}

module.exports = { confirmQuiet, newCallbackOf, newCallbackIn, replayLonger, specPath, predict };
