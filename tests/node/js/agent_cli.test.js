// The agent's command line (device/node/agent.js): `--purpose ./file.js` serves a team's own purpose
// module; a module that is not a purpose is refused with exit 2 naming the file; the agent keeps
// serving when its parent exits (a ctest fixture, `sh -c '... &'`) unless --exit-with-parent.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const agentJs = path.join(__dirname, '..', '..', '..', 'device', 'node', 'agent.js');
const TOKEN = 'cli-test-token';
const env = { ...process.env, TYPESTAR_DEVICE_TOKEN: TOKEN };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function status(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v1/status', headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ code: res.statusCode, body }));
    });
    req.on('error', (e) => resolve({ code: 0, body: e.code }));
  });
}

async function firstLine(file, ms = 10000) {
  for (let waited = 0; waited < ms; waited += 50) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (text.includes('\n')) return text.split('\n')[0];
    await sleep(50);
  }
  return '';
}

test('--purpose ./file.js serves a team\'s own purpose module', async () => {
  const child = spawn(process.execPath, [agentJs, '--purpose', './fixtures/flag_purpose.js', '--port', '0', '--tmax', '30'],
    { cwd: __dirname, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
    const m = /serving (.*) on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
    assert.ok(m, line);
    const s = await status(Number(m[2]));
    assert.strictEqual(s.code, 200);
    const body = JSON.parse(s.body);
    assert.strictEqual(body.name, 'Flag');
    assert.strictEqual(body.framework, 'flag-1');
    assert.deepStrictEqual(body.callins, ['set']);
    assert.deepStrictEqual(body.timing, { tmax_ms: 30, tmin_ms: 0 });
  } finally {
    child.kill('SIGTERM');
  }
});

test('a purpose file that is missing, broken or not a purpose: exit 2, naming the file (and line and column)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-agent-cli-'));
  fs.writeFileSync(path.join(dir, 'nothing.js'), 'module.exports = 42;\n');
  fs.writeFileSync(path.join(dir, 'broken.js'), "'use strict';\nmodule.exports = {\n  a: 1,\n  b: ,\n};\n");
  fs.writeFileSync(path.join(dir, 'throws.js'), "'use strict';\n\n  throw new TypeError('no such class');\n");
  const at = (file, where) => `${path.join(fs.realpathSync(dir), file)}:${where}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [file, expected] of [['./missing.js', /cannot load the purpose module '.*missing\.js': Cannot find module/],
                                  ['./broken.js', new RegExp(`\\(${at('broken.js', '4:6')}\\): SyntaxError: Unexpected token ','`)],
                                  ['./throws.js', new RegExp(`\\(${at('throws.js', '3:9')}\\): TypeError: no such class`)],
                                  ['./nothing.js', /the purpose module '.*nothing\.js' exports number, not a learning purpose/]]) {
    const r = spawnSync(process.execPath, [agentJs, '--purpose', file, '--port', '0'], { cwd: dir, env, encoding: 'utf8' });
    assert.strictEqual(r.status, 2, r.stderr);
    assert.match(r.stderr, expected);
    assert.strictEqual(r.stderr.split('\n').filter((l) => l !== '').length, 1, r.stderr);
  }
  const r = spawnSync(process.execPath, [agentJs, '--purpose', 'no-such-purpose'], { env, encoding: 'utf8' });
  assert.strictEqual(r.status, 2);
  assert.match(r.stderr, /unknown purpose 'no-such-purpose'/);
  fs.rmSync(dir, { recursive: true, force: true });
});

for (const exitWithParent of [false, true]) {
  test(`an agent whose parent exits ${exitWithParent ? 'exits with --exit-with-parent' : 'keeps serving (the default)'}`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-agent-cli-'));
    const log = path.join(dir, 'agent.log');
    const pidFile = path.join(dir, 'agent.pid');
    // The parent shell starts the agent in the background and exits soon after (a ctest fixture).
    const flag = exitWithParent ? ' --exit-with-parent' : '';
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${agentJs}" --purpose asynctask --port 0${flag} >"${log}" 2>&1 & echo $! >"${pidFile}"; sleep 1`], { env });
    assert.strictEqual(r.status, 0);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    try {
      const line = await firstLine(log);
      const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      assert.ok(m, line);
      await sleep(1500);  // the parent is long gone; --exit-with-parent checks every 500 ms
      const s = await status(Number(m[1]));
      if (exitWithParent) {
        assert.strictEqual(s.code, 0, 'the agent still answers after its parent exited');
        assert.match(fs.readFileSync(log, 'utf8'), /the parent process \d+ exited \(--exit-with-parent\); stopping/);
      } else {
        assert.strictEqual(s.code, 200, `the agent stopped when its parent exited: ${fs.readFileSync(log, 'utf8')}`);
      }
    } finally {
      try {
        process.kill(pid, 'SIGTERM');
      } catch (e) {
        // already gone
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the package is npm pack-able: not private, a bin entry, the runner and the purpose API in it', (t) => {
  const dir = path.dirname(agentJs);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.notStrictEqual(pkg.private, true);
  assert.deepStrictEqual(pkg.bin, { 'typestar-node-device': 'agent.js' });
  const lib = require(dir);  // the package's main: the library, not the agent's command line
  for (const name of ['LearningPurpose', 'settle', 'callbacksDrained', 'NodeDevice', 'Agent', 'specTests'])
    assert.ok(lib[name], name);
  assert.strictEqual(require(path.join(dir, 'test')).specTests, lib.specTests);
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--offline'], { cwd: dir, encoding: 'utf8' });
  if (r.error && r.error.code === 'ENOENT') return t.skip('npm is not installed');
  assert.strictEqual(r.status, 0, r.stderr);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path).sort();
  for (const f of ['agent.js', 'index.js', 'test.js', 'lib/spec_tests.js', 'lib/purpose.js', 'purposes/index.js', 'README.md'])
    assert.ok(files.includes(f), `${f} is not in the package: ${files.join(', ')}`);
  // node_modules: only the pinned dependencies, bundled (bundleDependencies) so that a tarball installs offline.
  const bundled = new Set(files.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/')[1]));
  for (const dep of Object.keys(pkg.dependencies)) assert.ok(bundled.has(dep), `${dep} is not bundled`);
  assert.ok(!files.some((f) => f.startsWith('bench/')), files.join(', '));
});
