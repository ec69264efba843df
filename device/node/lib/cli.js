// The typestar CLI as the node:test runner talks to it (runCli: never a verdict from a crash of the
// CLI) and the text it prints from the CLI's answers: the aligned trace (as typestar::format_trace),
// the accept command, the CLI's own summary and warnings, what changed (`typestar diff --format
// json`). Policy stays in the CLI: nothing here decides a verdict or a proposal.
'use strict';

const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

/// What `typestar accept` needs to take the proposal of `spec`: --auto keeps the generated names of
/// new states (stored states keep theirs); --force for another class name, callins or callbacks.
function acceptCommand(spec, force) {
  return `typestar accept ${shellQuote(spec)} --auto${force ? ' --force' : ''}`;
}

/// What a `typestar learn` run said of itself (its stderr), as the CLI wrote it: its summary line
/// ("learned N typestate states with L# in R rounds: ...") and its warnings (the tight-bound one).
function cliWarnings(stderr) {
  return stderr.split('\n').filter((l) => l.startsWith('typestar: warning: ') || l.startsWith('typestar: learned '))
    .map((l) => l.slice('typestar: '.length));
}

/// Whether `typestar accept` needs --force for `proposal` over `stored` (both `typestar export
/// --format json`): another class name, or other callins or callbacks (session/proposal.hpp's
/// proposal_mismatch).
function needsForce(stored, proposal) {
  const same = (a, b) => JSON.stringify([...(a || [])].sort()) === JSON.stringify([...(b || [])].sort());
  return stored.name !== proposal.name || !same(stored.callins, proposal.callins) || !same(stored.callbacks, proposal.callbacks);
}

/// `<spec without .yaml>.proposed.<ext>`, as the gtest plugin names proposals.
function proposedPath(spec, ext) {
  const e = path.extname(spec);
  const base = e === '.yaml' || e === '.yml' ? spec.slice(0, -e.length) : spec;
  return `${base}.proposed.${ext}`;
}

function shellQuote(text) {
  if (text !== '' && /^[A-Za-z0-9_./:=@%+-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function indent(text, prefix) {
  return text.split('\n').map((l) => (l === '' ? '' : prefix + l)).join('\n').replace(/\n*$/, '\n');
}

/// The aligned trace of a failing word, exactly as typestar::format_trace (indent 4).
function formatTrace(steps, indentBy = 4) {
  const rows = [['step', 'state', 'input', 'expected', 'actual'],
    ...steps.map((s, i) => [String(i + 1), s.state, s.input, s.expected, s.actual])];
  const width = [0, 1, 2, 3, 4].map((c) => Math.max(...rows.map((r) => r[c].length)));
  let marked = false;
  return rows.map((row, r) => {
    let line = ' '.repeat(indentBy) + row.map((cell, c) => (c < 4 ? cell + ' '.repeat(width[c] - cell.length + 2) : cell)).join('');
    if (r > 0 && !marked && steps[r - 1].expected !== steps[r - 1].actual) {
      line += `${' '.repeat(width[4] - row[4].length)}  <- differs`;
      marked = true;
    }
    return line.replace(/ +$/, '');
  }).join('\n') + '\n';
}

/// Runs the typestar CLI; resolves {status, stdout, stderr}. Never rejects for a non-zero exit;
/// rejects with a clear message when the CLI cannot be started.
function runCli(cli, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => reject(new Error(cliMissing(cli, e))));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function cliMissing(cli, e) {
  return e && e.code === 'ENOENT'
    ? `the typestar CLI '${cli}' was not found: install typestar (cmake --install) or set TYPESTAR_CLI to its path`
    : `cannot run the typestar CLI '${cli}': ${e && e.message ? e.message : e}`;
}

/// The transitions that changed from the stored spec to the proposal, by the stored spec's state
/// names: `typestar diff --format json`'s `changes` ({state, input, before, after}); none when it
/// cannot tell.
async function changedTransitions(cli, stored, proposal) {
  const d = await runCli(cli, ['diff', stored, proposal, '--format', 'json']);
  try {
    return JSON.parse(d.stdout).changes;
  } catch (e) {
    return [];
  }
}

/// One line per changed transition (the stored spec's names), this test's own marked; or that this
/// test's transition did not change (the gtest plugin's text). Empty without changes.
function changeSummary(changes, state, input) {
  if (!changes || changes.length === 0) return '';
  const mine = changes.some((c) => c.state === state && c.input === input);
  return 'What changed (stored -> proposed):\n' +
    changes.map((c) => `    ${c.state} ${c.input}: ${c.before}  =>  ${c.after}` +
      `${c.state === state && c.input === input ? "   <- this test's transition" : ''}\n`).join('') +
    (mine ? '' : `This test's transition (${state}, ${input}) did not change: its words pass through a transition that did.\n`);
}

function writeAtomically(file, text) {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

module.exports = {
  acceptCommand, cliWarnings, needsForce, proposedPath, shellQuote, indent, formatTrace, runCli, cliMissing,
  changedTransitions, changeSummary, writeAtomically,
};
