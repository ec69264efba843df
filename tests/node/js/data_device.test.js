// Data devices in the Node agent (device/node/lib/data.js, device/PROTOCOL.md "Data devices"): the
// DataPurpose builder and its validation, DataDevice's answers and what must never be an answer (an
// undeclared output, a wrong number of values, a value that is not an exact integer, a throw that is
// not a declared refusal, a crash recorded outside a callin), and the agent's data half of /v1: the
// status's typed signature, a session's callins with values and their retries, /v1/run with values,
// and the 400s for a wait, an unknown callin, missing or extra values and inexact integers.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..', 'device', 'node');
const { DataPurpose, DataDevice, answer, deviceFor } = require(path.join(root, 'lib', 'data'));
const { NodeDevice, DeviceError } = require(path.join(root, 'lib', 'device'));
const { definitionOf } = require(path.join(root, 'lib', 'purpose'));
const { Agent, statusOf } = require(path.join(root, 'lib', 'agent'));

/// A stack of at most two integers; `bug` picks a misbehaviour of pop.
function stack(bug = '') {
  return new DataPurpose('Stack').framework('t-1')
    .reset(() => ({ items: [] }))
    .callin('push', ['p'], (s, [p]) => {
      if (s.items.length >= 2) return 'full';
      s.items.push(p);
      return 'ok';
    })
    .callin('pop', [], (s) => {
      if (s.items.length === 0) throw new RangeError('empty');
      const v = s.items.pop();
      if (bug === 'undeclared') return 'gone';
      if (bug === 'values') return answer('out');
      if (bug === 'inexact') return answer('out', 0.5);
      if (bug === 'throws') throw new TypeError('broken');
      return answer('out', v);
    })
    .output('ok').output('full').output('empty').output('out', 'v')
    .refusedAs('empty', RangeError);
}

test('a data purpose is built and validated, and is a definition a purpose module may export', () => {
  const def = stack().build();
  assert.strictEqual(def.kind, 'data');
  assert.deepStrictEqual(def.signature(), {
    inputs: [{ name: 'push', parameters: [['p', 'int']] }, { name: 'pop', parameters: [] }],
    outputs: [{ name: 'ok', parameters: [], callback: false }, { name: 'full', parameters: [], callback: false },
      { name: 'empty', parameters: [], callback: false }, { name: 'out', parameters: [['v', 'int']], callback: false }],
    constants: [],
  });
  assert.strictEqual(definitionOf(stack()).kind, 'data');
  assert.strictEqual(definitionOf(() => stack()).kind, 'data');
  assert.ok(deviceFor(def) instanceof DataDevice);
  const bad = [
    [new DataPurpose('X'), /no reset snippet/],
    [new DataPurpose('X').reset(() => ({})), /no callin/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok'), /no output/],
    [new DataPurpose('X').reset(() => ({})).callin('a', ['p', 'p'], () => 'ok').output('ok'), /'a' has an empty or repeated parameter name/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').callin('a', [], () => 'ok').output('ok'), /callin 'a' declared twice/],
    [new DataPurpose('X').reset(() => ({})).callin('a', []).output('ok'), /callin 'a' has no body/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').output('ok').refusedAs('no', Error), /undeclared output 'no'/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').output('ok', 'v').refusedAs('ok', Error), /has parameters/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').output('ok').refusedAs('ok'), /names no error/],
    [new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').output('ok').constant('c', 2 ** 60), /constant 'c' is not an integer/],
  ];
  for (const [p, why] of bad) assert.throws(() => p.build(), why);
  const withConstant = new DataPurpose('X').reset(() => ({})).callin('a', [], () => 'ok').output('ok').constant('zero', 0).build();
  assert.deepStrictEqual(withConstant.signature().constants, [{ name: 'zero', type: 'int', value: 0 }]);
});

test('a data device answers each callin its output with values; a declared refusal is its output', async () => {
  const d = new DataDevice(stack().build());
  const r = await d.run([{ callin: 'pop', values: [] }, { callin: 'push', values: [3] }, { callin: 'push', values: [-7] },
    { callin: 'push', values: [9] }, { callin: 'pop', values: [] }]);
  assert.deepStrictEqual(r.outputs, [{ output: 'empty', values: [] }, { output: 'ok', values: [] }, { output: 'ok', values: [] },
    { output: 'full', values: [] }, { output: 'out', values: [-7] }]);
  assert.strictEqual(r.steps, 5);
  assert.strictEqual(r.waits, 0);
  // A fresh instance per run.
  assert.deepStrictEqual((await d.run([{ callin: 'pop', values: [] }])).outputs, [{ output: 'empty', values: [] }]);
});

test('what a callin must never become: an undeclared output, wrong values, a throw not declared, a crash', async () => {
  const word = [{ callin: 'push', values: [1] }, { callin: 'pop', values: [] }];
  for (const [bug, why] of [['undeclared', /answered undeclared output 'gone'/], ['values', /answered 'out' with 0 values, declared 1/],
    ['inexact', /not an integer/], ['throws', /callin 'pop' threw TypeError: broken \(not a declared refusal\)/]]) {
    await assert.rejects(new DataDevice(stack(bug).build()).run(word), (e) => e instanceof DeviceError && why.test(e.message), bug);
  }
  // A crash recorded outside any callin (the agent's watchCrashes) fails the next step, never an answer.
  const d = new DataDevice(stack().build());
  await d.reset();
  d.monitor.record('uncaught exception in the class under learning: boom', 'harnessErrors');
  await assert.rejects(d.step('pop', []), /Stack: uncaught exception in the class under learning: boom/);
  // A reset that fails is a device error.
  const noInstance = new DataPurpose('N').reset(() => null).callin('a', [], () => 'ok').output('ok').build();
  await assert.rejects(new DataDevice(noInstance).run([{ callin: 'a', values: [] }]), /returned no instance/);
});

/// One request to the agent: {status, body}.
function request(port, method, target, body) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path: target,
      headers: { Authorization: 'Bearer t0ken', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
    (res) => {
      let answer = '';
      res.on('data', (d) => { answer += d; });
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(answer) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

test('the agent serves a data device: the typed signature, callins with values and retries, /v1/run', async () => {
  const agent = new Agent(() => new DataDevice(stack().build()), { token: 't0ken' });
  const port = await agent.start();
  try {
    const status = (await request(port, 'GET', '/v1/status')).body;
    assert.deepStrictEqual(status.data, stack().build().signature());
    assert.deepStrictEqual(status.callins, ['push', 'pop']);
    assert.deepStrictEqual(status.callbacks, []);
    assert.deepStrictEqual(status.timing, { tmax_ms: 0, tmin_ms: 0 });
    assert.deepStrictEqual(status, { ...statusOf(new DataDevice(stack().build()), 64), sessions: 0 });

    const session = (await request(port, 'POST', '/v1/sessions', {})).body.session;
    const step = (body) => request(port, 'POST', `/v1/sessions/${session}/callin`, body);
    assert.deepStrictEqual((await step({ seq: 0, callin: 'push', values: [5] })).body, { seq: 0, output: 'ok', values: [] });
    assert.deepStrictEqual((await step({ seq: 1, callin: 'pop' })).body, { seq: 1, output: 'out', values: [5] });
    // A retry of the last step is answered again, not run (the stack is empty now).
    assert.deepStrictEqual((await step({ seq: 1, callin: 'pop' })).body, { seq: 1, output: 'out', values: [5] });
    const refused = [
      [{ seq: 2, callin: 'push' }, /callin 'push' takes 1 value, got 0/],
      [{ seq: 2, callin: 'push', values: [1, 2] }, /takes 1 value, got 2/],
      [{ seq: 2, callin: 'push', values: ['1'] }, /not an integer within/],
      [{ seq: 2, callin: 'push', values: [2 ** 53] }, /not an integer within/],
      [{ seq: 2, callin: 'push', values: [1.5] }, /not an integer within/],
      [{ seq: 2, callin: 'peek' }, /unknown callin 'peek'/],
    ];
    for (const [body, why] of refused) {
      const r = await step(body);
      assert.strictEqual(r.status, 400, JSON.stringify(body));
      assert.match(r.body.value.message, why);
    }
    const wait = await request(port, 'POST', `/v1/sessions/${session}/wait`, { seq: 2 });
    assert.strictEqual(wait.status, 400);
    assert.match(wait.body.value.message, /a data device has no wait/);
    // The refused requests did not advance the sequence.
    assert.deepStrictEqual((await step({ seq: 2, callin: 'pop' })).body, { seq: 2, output: 'empty', values: [] });

    const run = await request(port, 'POST', '/v1/run', { inputs: [{ callin: 'push', values: [3] }, { callin: 'push', values: [4] }, 'pop'] });
    assert.deepStrictEqual(run.body, { outputs: [{ output: 'ok', values: [] }, { output: 'ok', values: [] }, { output: 'out', values: [4] }],
      steps: 3, waits: 0 });
    for (const [inputs, why] of [[['push'], /takes 1 value, got 0/], [[{ callin: 'pop', values: [1] }], /takes 0 values, got 1/],
      [[7], /an input is a number/], [[{ callin: 'nope' }], /unknown callin 'nope'/]]) {
      const r = await request(port, 'POST', '/v1/run', { inputs });
      assert.strictEqual(r.status, 400);
      assert.match(r.body.value.message, why);
    }
  } finally {
    await agent.stop();
  }
});

test('a callin the class answers wrongly is a device error over /v1, never an answer', async () => {
  const agent = new Agent(() => new DataDevice(stack('undeclared').build()), { token: 't0ken' });
  const port = await agent.start();
  try {
    const r = await request(port, 'POST', '/v1/run', { inputs: [{ callin: 'push', values: [1] }, 'pop'] });
    assert.strictEqual(r.status, 500);
    assert.strictEqual(r.body.value.error, 'device error');
    assert.match(r.body.value.message, /answered undeclared output 'gone'/);
  } finally {
    await agent.stop();
  }
  // A typestate purpose still gets a NodeDevice.
  const { LearningPurpose } = require(path.join(root, 'lib', 'purpose'));
  assert.ok(deviceFor(new LearningPurpose('T').reset(() => ({})).callin('a', () => {}).build()) instanceof NodeDevice);
});
