// typestar-node-device as a package a Node team installs (issue 36, Node item 5): its TypeScript
// declarations name exactly what it exports; it is usable from ES modules as from CommonJS
// (`exports`: import / require / types); `npm pack` then `npm install ./x.tgz` works without a
// registry and writes no path of this machine; and the node:test runner's edges seen from `node
// --test` itself: a name pattern that filters out a spec's load error does not exit 0, and
// `node --test --watch` re-runs when the spec changes. TYPESTAR_CLI: the built CLI (set by ctest).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const pkgDir = path.join(root, 'device', 'node');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// The names a .d.ts file exports as values (classes, functions, consts, re-exports), not types.
function declaredValues(file) {
  const text = fs.readFileSync(file, 'utf8');
  const names = [...text.matchAll(/^export declare (?:class|function|const) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
  for (const m of text.matchAll(/^export \{([^}]*)\} from/gm)) names.push(...m[1].split(',').map((n) => n.trim()));
  return names.sort();
}

/// A scratch project whose node_modules/typestar-node-device links to the package directory.
function linkedProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-node-pkg-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(pkgDir, path.join(dir, 'node_modules', 'typestar-node-device'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"scratch","version":"1.0.0","private":true}\n');
  return dir;
}

const esmProbe = `import { LearningPurpose, specTests, NodeDevice } from 'typestar-node-device';
import { specTests as runner, formatTrace } from 'typestar-node-device/test';
import main from 'typestar-node-device';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const cjs = require('typestar-node-device');
console.log(JSON.stringify({
  purpose: typeof LearningPurpose, device: typeof NodeDevice, trace: typeof formatTrace,
  same: specTests === runner && cjs.specTests === runner && main === cjs && cjs.LearningPurpose === LearningPurpose,
  built: new LearningPurpose('X').reset(() => ({})).callin('go', () => {}).build().name,
}));
`;

function expectEsmWorks(dir) {
  fs.writeFileSync(path.join(dir, 'probe.mjs'), esmProbe);
  const r = spawnSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.deepStrictEqual(JSON.parse(r.stdout),
    { purpose: 'function', device: 'function', trace: 'function', same: true, built: 'X' });
}

test('the TypeScript declarations name exactly what each entry point exports, from CommonJS and ESM', async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  for (const [entry, dts, cjs, esm] of [['.', 'index.d.ts', 'index.js', 'index.mjs'],
                                        ['./test', 'test.d.ts', 'test.js', 'test.mjs']]) {
    assert.deepStrictEqual(pkg.exports[entry], { types: `./${dts}`, import: `./${esm}`, require: `./${cjs}` });
    for (const f of [dts, cjs, esm]) assert.ok(pkg.files.includes(f), `${f} is not in package.json files`);
    const declared = declaredValues(path.join(pkgDir, dts));
    const required = Object.keys(require(path.join(pkgDir, cjs))).sort();
    assert.deepStrictEqual(declared, required, `${dts} against require('${cjs}')`);
    const imported = Object.keys(await import(path.join(pkgDir, esm))).filter((n) => n !== 'default').sort();
    assert.deepStrictEqual(imported, required, `import('${esm}') against require('${cjs}')`);
  }
  assert.strictEqual(pkg.types, './index.d.ts');
});

test('an ES module imports the package and typestar-node-device/test by name (one instance with require)', () => {
  const dir = linkedProject();
  try {
    expectEsmWorks(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('npm pack, then npm install ./x.tgz offline: no path of this machine written, CommonJS, ESM and bin work', (t) => {
  const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
  if (npm.error && npm.error.code === 'ENOENT') return t.skip('npm is not installed');
  if (!fs.existsSync(path.join(pkgDir, 'node_modules', 'ws-8')))
    return t.skip('device/node has no node_modules (run npm ci there): its dependencies are bundled from them');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typestar-node-tgz-'));
  try {
    const packed = spawnSync('npm', ['pack', '--pack-destination', dir, '--offline', '--json'],
      { cwd: pkgDir, encoding: 'utf8' });
    assert.strictEqual(packed.status, 0, packed.stderr);
    const info = JSON.parse(packed.stdout)[0];
    const files = info.files.map((f) => f.path);
    for (const f of ['index.mjs', 'index.d.ts', 'test.mjs', 'test.d.ts', 'node_modules/ws-8/package.json'])
      assert.ok(files.includes(f), `${f} is not in the tarball`);
    assert.ok(!files.some((f) => f.startsWith('bench/')), 'bench/ is in the tarball');
    const project = path.join(dir, 'app');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n');
    // --offline: the dependencies come from the tarball itself (bundleDependencies), never a registry.
    const installed = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `../${info.filename}`],
      { cwd: project, encoding: 'utf8' });
    assert.strictEqual(installed.status, 0, installed.stderr);
    const written = fs.readFileSync(path.join(project, 'package.json'), 'utf8');
    assert.strictEqual(JSON.parse(written).dependencies['typestar-node-device'], `file:../${info.filename}`);
    for (const machinePath of [dir, pkgDir, root, os.tmpdir()])
      assert.ok(!written.includes(machinePath), `package.json names ${machinePath}:\n${written}`);
    const lock = fs.readFileSync(path.join(project, 'package-lock.json'), 'utf8');
    assert.ok(!lock.includes(pkgDir) && !lock.includes(dir), 'package-lock.json names a path of this machine');
    expectEsmWorks(project);
    const cjs = spawnSync(process.execPath, ['-e', "console.log(typeof require('typestar-node-device/test').specTests)"],
      { cwd: project, encoding: 'utf8' });
    assert.strictEqual(cjs.stdout.trim(), 'function', cjs.stderr);
    const bin = spawnSync(path.join(project, 'node_modules', '.bin', 'typestar-node-device'), ['--list'],
      { cwd: project, encoding: 'utf8' });
    assert.strictEqual(bin.status, 0, bin.stderr);
    assert.match(bin.stdout, /readable-stream-4/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/// A copy of examples/node_job with the package linked in, `spec` written as its specs/job.yaml.
function jobProject(spec) {
  const dir = linkedProject();
  for (const sub of ['purposes', 'src', 'test', 'specs']) fs.mkdirSync(path.join(dir, sub));
  for (const f of ['purposes/job.js', 'src/job.js', 'test/job.test.js'])
    fs.copyFileSync(path.join(root, 'examples', 'node_job', f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'specs', 'job.yaml'), spec);
  return dir;
}

const committed = fs.readFileSync(path.join(root, 'examples', 'node_job', 'specs', 'job.yaml'), 'utf8');
const runEnv = () => {
  const env = { ...process.env, CI: '1' };
  for (const k of ['TYPESTAR_UPDATE', 'TYPESTAR_BOUND', 'JOB_VERSION', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT'])
    delete env[k];
  return env;
};

test('a name pattern that filters out a spec\'s load error fails (exit 1, the error on stderr), never exit 0', (t) => {
  if (!process.env.TYPESTAR_CLI) return t.skip('TYPESTAR_CLI is not set');
  const dir = jobProject('typestar: 1\nname: Job\nstates: [\n');
  try {
    const r = spawnSync(process.execPath, ['--test', '--test-name-pattern=^Job\\.s0_start$'],
      { cwd: dir, env: runEnv(), encoding: 'utf8' });
    const all = r.stdout + r.stderr;
    assert.strictEqual(r.status, 1, all);
    assert.match(all, /job\.yaml:4:1: malformed YAML/);
    assert.match(all, /the test job\.load was filtered out by a name pattern, but no conformance test of this spec can run/);
    // Unfiltered it is the one failing test, as before.
    const plain = spawnSync(process.execPath, ['--test'], { cwd: dir, env: runEnv(), encoding: 'utf8' });
    assert.strictEqual(plain.status, 1);
    assert.match(plain.stdout, /not ok 1 - job\.load/);
    assert.doesNotMatch(plain.stdout + plain.stderr, /filtered out/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('node --test --watch re-runs a spec\'s tests when the spec file changes', async (t) => {
  if (!process.env.TYPESTAR_CLI) return t.skip('TYPESTAR_CLI is not set');
  const dir = jobProject(committed);
  const child = spawn(process.execPath, ['--test', '--watch'], { cwd: dir, env: runEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const runs = () => (out.match(/^# Subtest: Job\.s0_start$/gm) || []).length;
  const waitFor = async (n, ms) => {
    for (let waited = 0; waited < ms && runs() < n; waited += 100) await sleep(100);
    return runs();
  };
  try {
    assert.strictEqual(await waitFor(1, 60000), 1, `the first run did not finish:\n${out}`);
    await sleep(1000);
    // Saving the spec (the test file and the modules it requires are untouched) must re-run the file.
    fs.writeFileSync(path.join(dir, 'specs', 'job.yaml'), `${committed}# saved by the watch test\n`);
    assert.strictEqual(await waitFor(2, 60000), 2, `saving the spec did not re-run its tests:\n${out}`);
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
