#!/usr/bin/env node
// typestar-node-device: serves a JavaScript class under learning over the HTTP device protocol /v1
// (device/PROTOCOL.md), as typestar-device does for C++ classes: loopback only unless told
// otherwise, a bearer token on every request (TYPESTAR_DEVICE_TOKEN, or a 0600 file), no browser
// (Origin) requests, bounded sizes. Prints `typestar-node-device: serving NAME on URL` once ready.
//
//   node device/node/agent.js --purpose readable-stream-3 --port 0
//   typestar-node-device --purpose ./my_purpose.js --port 0      (a team's own purpose module)
'use strict';

// Read first (before any module loads): --exit-with-parent compares against it.
const startParent = process.ppid;

const fs = require('fs');
const path = require('path');
const { parseArgs } = require('util');

const { Agent, parseFault } = require('./lib/agent');
const { watchCrashes } = require('./lib/device');
const { deviceFor } = require('./lib/data');
const { purposes, loadPurposeModule } = require('./purposes');

const USAGE = `usage: typestar-node-device --purpose NAME|FILE [options]
  --purpose NAME       a bundled class to serve (see --list), or a path (./x.js, /abs/x.js) of a
                       module exporting a built definition, a LearningPurpose or DataPurpose (a
                       data device, learned as a register automaton), or make(options)
  --list               list the purposes and exit
  --host ADDR          address to bind (default 127.0.0.1; anything else exposes the device)
  --port N             port (default 8765; 0: any free port, printed)
  --token-file PATH    bearer token file, mode 0600 (default: $TYPESTAR_DEVICE_TOKEN, else $TYPESTAR_DEVICE_TOKEN_FILE)
  --tmax MS, --tmin MS override the purpose's timing
  --delay-ms MS        callback delay of the simulated purposes (asynctask)
  --variants MODE      compare, split or first (default compare)
  --max-sessions N     instances alive at once (default 64)
  --idle-timeout S     idle sessions are reaped after this many seconds (default 60)
  --max-body BYTES     largest request body (default 1048576)
  --max-connections N  connections open at once; one more is answered 503 (default 256)
  --connection-timeout S  a connection that starts no request, or does not complete one, within
                       S seconds is closed (default 30)
  --exit-with-parent   exit when the parent process exits (off by default)
  --fault KIND[:AFTER[:TIMES]]  inject a fault for testing clients (none, crash, hang, drop, garbage)
  --hang-ms MS         how long a \`hang\` fault sleeps (default 3000)
`;

function fail(message, code = 2) {
  process.stderr.write(`typestar-node-device: ${message}\n`);
  process.exit(code);
}

/// The token of a file that must not be accessible by group or others (typestar::read_token_file).
function readTokenFile(path) {
  let st;
  try {
    st = fs.statSync(path);
  } catch (e) {
    throw new Error(`token file '${path}': cannot read it: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`);
  }
  if ((st.mode & 0o077) !== 0)
    throw new Error(`token file '${path}' is accessible by group or others (mode ${(st.mode & 0o777).toString(8)}); make it 0600`);
  let token;
  try {
    token = fs.readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new Error(`token file '${path}': cannot read it`);
  }
  if (token === '') throw new Error(`token file '${path}' is empty`);
  return token;
}

/// The purpose `--purpose` names: a bundled name (purposes/index.js), or a path to a module (it
/// contains a `/` or ends in .js or .cjs; a CommonJS module) that exports a ClassDefinition (LearningPurpose#build()),
/// a LearningPurpose, a function make(options) returning either, or {make, describe}. Throws an
/// Error naming the problem.
function findPurpose(name) {
  if (name === '') throw new Error('--purpose is required (see --list)');
  const isPath = name.includes('/') || name.includes(path.sep) || /\.(c|m)?js$/.test(name);
  if (!isPath) {
    if (!Object.prototype.hasOwnProperty.call(purposes, name))
      throw new Error(`unknown purpose '${name}' (see --list; a file of your own: --purpose ./${name}.js)`);
    return purposes[name];
  }
  return { file: path.resolve(name), make: (options) => loadPurposeModule(path.resolve(name), options) };
}

function number(values, name, fallback, min = 0, max = Number.MAX_SAFE_INTEGER) {
  if (values[name] === undefined) return fallback;
  const text = values[name];
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max)
    fail(`--${name} must be an integer in [${min}, ${max}], not '${text}'`);
  return Number(text);
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        purpose: { type: 'string' }, list: { type: 'boolean' }, host: { type: 'string' }, port: { type: 'string' },
        'token-file': { type: 'string' }, tmax: { type: 'string' }, tmin: { type: 'string' },
        'delay-ms': { type: 'string' }, variants: { type: 'string' }, 'max-sessions': { type: 'string' },
        'idle-timeout': { type: 'string' }, 'max-body': { type: 'string' }, fault: { type: 'string' },
        'hang-ms': { type: 'string' }, help: { type: 'boolean' }, 'max-connections': { type: 'string' },
        'connection-timeout': { type: 'string' }, 'exit-with-parent': { type: 'boolean' },
      },
    });
  } catch (e) {
    fail(`${e.message}\n${USAGE}`);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (v.list) {
    for (const key of Object.keys(purposes).sort()) process.stdout.write(`${key}\t${purposes[key].describe}\n`);
    return;
  }
  let entry;
  try {
    entry = findPurpose(v.purpose ?? '');
  } catch (e) {
    fail(e.message);
  }
  const host = v.host ?? '127.0.0.1';
  const port = number(v, 'port', 8765, 0, 65535);
  let token;
  try {
    if (v['token-file'] !== undefined) token = readTokenFile(v['token-file']);
    else if (process.env.TYPESTAR_DEVICE_TOKEN) token = process.env.TYPESTAR_DEVICE_TOKEN;
    else if (process.env.TYPESTAR_DEVICE_TOKEN_FILE) token = readTokenFile(process.env.TYPESTAR_DEVICE_TOKEN_FILE);
    else fail('a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file');
  } catch (e) {
    fail(e.message, 1);
  }
  const variants = v.variants ?? 'compare';
  if (!['compare', 'split', 'first'].includes(variants)) fail('--variants must be compare, split or first');
  let fault;
  try {
    fault = parseFault(v.fault ?? 'none');
  } catch (e) {
    fail(e.message);
  }
  fault.hangMs = number(v, 'hang-ms', 3000);
  const options = {};
  if (v.tmax !== undefined) options.tmaxMs = number(v, 'tmax');
  if (v.tmin !== undefined) options.tminMs = number(v, 'tmin');
  if (v['delay-ms'] !== undefined) options.delayMs = number(v, 'delay-ms');
  let definition;
  try {
    definition = entry.make(options);
  } catch (e) {
    fail(`purpose '${v.purpose}': ${e.message}`, entry.file ? 2 : 1);  // a team's file: exit 2, as documented
  }
  const timing = {};
  if (options.tmaxMs !== undefined) timing.tmaxMs = options.tmaxMs;
  if (options.tminMs !== undefined) timing.tminMs = options.tminMs;
  if (!['127.0.0.1', '::1', 'localhost'].includes(host))
    process.stderr.write(`typestar-node-device: warning: listening on ${host} exposes the device beyond this machine; ` +
                         'the token is sent in clear text\n');
  if (definition.kind === 'data' && (v.tmax !== undefined || v.tmin !== undefined))
    fail(`purpose '${v.purpose}' is a data device (a register automaton), which never waits: --tmax and --tmin do not apply`);
  const agent = new Agent(() => deviceFor(definition, { variants, timing }), {
    token, host, port, fault,
    maxSessions: number(v, 'max-sessions', 64, 1),
    idleTimeoutMs: number(v, 'idle-timeout', 60, 1) * 1000,
    maxBodyBytes: number(v, 'max-body', 1024 * 1024, 1),
    maxConnections: number(v, 'max-connections', 256, 1),
    connectionTimeoutMs: number(v, 'connection-timeout', 30, 1, 86400) * 1000,
    onCrash: () => process.exit(70),
  });
  // An exception thrown by library code outside a callin (an event listener, a timer) must not take
  // the agent down silently or become a wrong answer: every live instance answers `device error`.
  watchCrashes((message, e) => {
    process.stderr.write(`typestar-node-device: ${message}\n${e && e.stack ? e.stack : ''}\n`);
    agent.harnessError(message);
  });
  try {
    await agent.start();
  } catch (e) {
    fail(`cannot listen on ${host}:${port}: ${e.message}`, 1);
  }
  process.stdout.write(`typestar-node-device: serving ${v.purpose} on ${agent.url}\n`);
  const stop = async () => {
    await agent.stop();
    process.stdout.write('typestar-node-device: stopped\n');
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // --exit-with-parent: exit with the parent (a test that died without killing us) once its pid stops
  // being our parent. Off by default: a ctest fixture or `sh -c '... &'` starts the agent from a
  // parent that exits at once.
  if (v['exit-with-parent']) {
    const parent = startParent;
    setInterval(() => {
      if (process.ppid !== parent) {
        process.stderr.write(`typestar-node-device: the parent process ${parent} exited (--exit-with-parent); stopping\n`);
        process.exit(0);
      }
    }, 500).unref();
  }
  setInterval(() => {}, 1 << 30);  // keep running until a signal
}

main();
