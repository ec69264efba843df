// The typestar CLI as the node:test runner talks to it (runCli: never a verdict from a crash of the
// CLI), and the small text helpers of the runner's own messages (shell quoting; proposedPath and
// formatTrace, deprecated: the CLI names proposals and its JSON carries each failure's trace as text). Policy stays
// in the CLI: nothing here decides a verdict or a proposal.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

/// `<spec without .yaml>.proposed.<ext>`, as the gtest plugin names proposals. Deprecated (kept for
/// one release; the runner no longer uses it): the CLI names and writes proposals, and its JSON says
/// where (`proposal.file`).
function proposedPath(spec, ext) {
  const e = path.extname(spec);
  const base = e === '.yaml' || e === '.yml' ? spec.slice(0, -e.length) : spec;
  return `${base}.proposed.${ext}`;
}

function shellQuote(text) {
  if (text !== '' && /^[A-Za-z0-9_./:=@%+-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/// The aligned trace of a failing word, exactly as typestar::format_trace (indent 4). Deprecated
/// (kept for one release; the runner no longer uses it): `typestar check --format json` gives each
/// failing test's `trace_text`.
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

module.exports = { proposedPath, shellQuote, formatTrace, runCli, cliMissing };
