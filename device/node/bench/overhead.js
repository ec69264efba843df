#!/usr/bin/env node
// HTTP-to-Node overhead per step: the same queries run in-process (NodeDevice.run) and through the
// agent over loopback HTTP, batch (/v1/run, one round trip per query) and step-wise (sessions, one
// round trip per step). Prints milliseconds per executed step. Not a test.
//   node device/node/bench/overhead.js [--purpose readable-stream-4] [--queries 300]
'use strict';

const http = require('http');
const { parseArgs } = require('util');
const { performance } = require('perf_hooks');
const { Agent } = require('../lib/agent');
const { NodeDevice } = require('../lib/device');
const { purposes } = require('../purposes');

const { values } = parseArgs({ options: { purpose: { type: 'string' }, queries: { type: 'string' } } });
const purpose = values.purpose ?? 'readable-stream-4';
const queries = Number(values.queries ?? 300);
// Callins only (no quiet waits, whose tmax would dominate): each step is one library call + settle.
const word = ['pause', 'resume', 'pause', 'resume', 'read', 'pause', 'resume', 'read'];

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(port, path, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent: keepAlive,
      headers: { Authorization: 'Bearer bench', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } },
    (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => (res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(text))));
    });
    req.on('error', reject);
    req.end(data);
  });
}

(async () => {
  const definition = purposes[purpose].make({});
  const local = new NodeDevice(definition, { variants: 'first' });
  let t = performance.now();
  let steps = 0;
  for (let i = 0; i < queries; ++i) steps += (await local.run(word)).steps;
  const inProcess = (performance.now() - t) / steps;

  const agent = new Agent(() => new NodeDevice(definition, { variants: 'first' }), { token: 'bench' });
  const port = await agent.start();
  t = performance.now();
  steps = 0;
  for (let i = 0; i < queries; ++i) steps += (await post(port, '/v1/run', { inputs: word })).steps;
  const batch = (performance.now() - t) / steps;

  t = performance.now();
  steps = 0;
  for (let i = 0; i < queries; ++i) {
    const { session } = await post(port, '/v1/sessions', {});
    for (let s = 0; s < word.length; ++s) await post(port, `/v1/sessions/${session}/callin`, { seq: s, callin: word[s] });
    await new Promise((resolve) => {
      http.request({ host: '127.0.0.1', port, path: `/v1/sessions/${session}`, method: 'DELETE', agent: keepAlive,
        headers: { Authorization: 'Bearer bench' } }, (res) => { res.resume(); res.on('end', resolve); }).end();
    });
    steps += word.length;
  }
  const stepwise = (performance.now() - t) / steps;
  await agent.stop();
  keepAlive.destroy();
  const f = (x) => x.toFixed(3);
  console.log(`purpose ${purpose}, ${queries} queries of ${word.length} callins (node ${process.versions.node})`);
  console.log(`in-process NodeDevice.run      ${f(inProcess)} ms/step`);
  console.log(`HTTP /v1/run (batch)           ${f(batch)} ms/step  (overhead ${f(batch - inProcess)} ms/step)`);
  console.log(`HTTP sessions (step-wise)      ${f(stepwise)} ms/step  (overhead ${f(stepwise - inProcess)} ms/step)`);
  process.exit(0);
})();
