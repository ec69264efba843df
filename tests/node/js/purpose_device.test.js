// The JavaScript learning-purpose API (device/node/lib/purpose.js) and NodeDevice
// (device/node/lib/device.js): fresh instances, callins that throw or reject answer `err` (absorbing)
// unless Node itself crashed (ERR_INTERNAL_ASSERTION: a DeviceError),
// event callbacks (merged sources, undeclared names), tmax/tmin quiescence and their violations,
// filters, variants, the quiet declaration, and Device::run's contract.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { EventEmitter } = require('events');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..', 'device', 'node');
const { LearningPurpose, atMostPending, both, callbacksDrained, settle } = require(path.join(root, 'lib', 'purpose'));
const { NodeDevice, DeviceError, NondeterminismError } = require(path.join(root, 'lib', 'device'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// A toggle: `on` emits `changed` after `delayMs` (0: on the next tick); `off` throws when already off.
class Toggle extends EventEmitter {
  constructor(delayMs) {
    super();
    this.delayMs = delayMs;
    this.state = false;
  }
  on_() {
    this.state = true;
    if (this.delayMs === 0) process.nextTick(() => this.emit('changed'));
    else setTimeout(() => this.emit('changed'), this.delayMs);
  }
  off() {
    if (!this.state) throw new Error('already off');
    this.state = false;
  }
}

function toggle(delayMs, { tmaxMs = 150, tminMs = 0 } = {}) {
  let made = 0;
  const purpose = new LearningPurpose('Toggle')
    .framework('test-1')
    .reset((sink) => {
      ++made;
      const t = new Toggle(delayMs);
      t.on('changed', () => sink.emit('changed'));
      return t;
    })
    .callin('on', (t) => t.on_())
    .callin('off', (t) => t.off())
    .callback('changed')
    .timing({ tmaxMs, tminMs });
  return { purpose, made: () => made };
}

async function answers(device, word) {
  return (await device.run(word)).outputs;
}

test('reset makes a fresh instance per query, and a throwing callin is err, absorbing', async () => {
  const { purpose, made } = toggle(5);
  const d = new NodeDevice(purpose.build());
  assert.deepStrictEqual(d.inputs, ['on', 'off', 'wait']);
  assert.deepStrictEqual(d.outputs, ['ok', 'quiet', 'err', 'changed']);
  assert.deepStrictEqual(await answers(d, ['on', 'wait', 'off', 'off', 'on']), ['ok', 'changed', 'ok', 'err', 'err']);
  assert.deepStrictEqual(await answers(d, ['off']), ['err']);  // a fresh instance: off again
  assert.strictEqual(made(), 2);
});

test('a rejected async callin is err', async () => {
  const def = new LearningPurpose('Async')
    .reset(() => ({}))
    .callin('fails', async () => {
      await sleep(1);
      throw new Error('no');
    })
    .callin('works', async () => sleep(1))
    .build();
  const d = new NodeDevice(def);
  assert.deepStrictEqual(await answers(d, ['works', 'fails', 'works']), ['ok', 'err', 'err']);
});

test('a callin that crashes Node (ERR_INTERNAL_ASSERTION) is a DeviceError, never the answer err', async () => {
  const def = new LearningPurpose('Crashing')
    .reset(() => ({}))
    .callin('params', () => {
      const e = new Error('This is caused by either a bug in Node.js or incorrect usage of Node.js internals.');
      e.code = 'ERR_INTERNAL_ASSERTION';
      throw e;
    })
    .build();
  const d = new NodeDevice(def);
  await d.reset();
  await assert.rejects(d.step('params'), (e) => e instanceof DeviceError &&
    /callin 'params' crashed in query #1 'params': ERR_INTERNAL_ASSERTION/.test(e.message));
  await d.finish();
});

test('quiet is not declared stable by default: a second wait runs', async () => {
  const { purpose } = toggle(5);
  const d = new NodeDevice(purpose.build());
  assert.strictEqual(d.quietIsStable, false);
  const r = await d.run(['wait', 'wait', 'wait']);
  assert.deepStrictEqual(r, { outputs: ['quiet', 'quiet', 'quiet'], steps: 3, waits: 3 });
  const stable = new NodeDevice(toggle(5).purpose.quietIsStable().build());
  assert.deepStrictEqual(await stable.run(['wait', 'wait', 'wait']), { outputs: ['quiet', 'quiet', 'quiet'], steps: 1, waits: 1 });
});

test('a callback after a quiet wait (tmax too small) is a DeviceError, never an answer', async () => {
  const { purpose } = toggle(60, { tmaxMs: 20 });
  const d = new NodeDevice(purpose.build());
  await d.reset();
  assert.strictEqual(await d.step('on'), 'ok');
  assert.strictEqual(await d.step('wait'), 'quiet');
  await sleep(80);
  await assert.rejects(d.step('wait'), (e) => e instanceof DeviceError &&
    /^Toggle: tmax too small: callback 'changed' arrived [0-9.]+ ms after the start of a `wait` that answered quiet \(tmax 20 ms\) in query #1 'on wait'$/.test(e.message) &&
    // the violation as the protocol's data (PROTOCOL.md `timing violation`): this query's, re-runnable
    e.timing.kind === 'late' && e.timing.callback === 'changed' && e.timing.delay_ms >= 20 &&
    e.timing.tmax_ms === 20 && e.timing.tmin_ms === 0 && e.timing.earlier_query === false && e.timing.runs === 1);
  await d.finish();
});

test('a late callback of an ended query fails the next reset', async () => {
  const { purpose } = toggle(60, { tmaxMs: 20 });
  const d = new NodeDevice(purpose.build());
  assert.deepStrictEqual(await answers(d, ['on', 'wait']), ['ok', 'quiet']);
  await sleep(80);
  // found at the next reset: an answered query's, so a client must not re-run it as this one's
  await assert.rejects(d.run(['off']), (e) => e instanceof DeviceError && e.timing.kind === 'late' &&
    e.timing.callback === 'changed' && e.timing.earlier_query === true);
  assert.deepStrictEqual(await answers(d, ['off']), ['err']);  // reported once, then usable again
});

test('a callback sooner than tmin, or before the next callin could run, is a DeviceError', async () => {
  const fast = new NodeDevice(toggle(0, { tmaxMs: 40, tminMs: 10 }).purpose.settle(() => settle.turns()).build());
  await assert.rejects(fast.run(['on', 'wait']), (e) =>
    /tmin violated: callback 'changed' arrived [0-9.]+ ms after callin 'on' started \(tmin 10 ms\)/.test(e.message) &&
    e.timing.kind === 'early' && e.timing.callback === 'changed' && e.timing.delay_ms < 10 && e.timing.tmin_ms === 10);
  const between = new NodeDevice(toggle(0).purpose.settle(() => settle.turns()).build());
  await assert.rejects(between.run(['on', 'off']), (e) =>
    /tmin violated: callback 'changed' arrived before callin 'off' could run/.test(e.message) &&
    e.timing.kind === 'queued' && e.timing.callback === 'changed' && e.timing.earlier_query === false);
});

test('settled callbacks are queued and delivered by wait; callbacksDrained holds a callin back', async () => {
  const d = new NodeDevice(toggle(0).purpose.settle(() => settle.turns()).restrictTo(callbacksDrained()).build());
  // Outside the learning purpose, not refused by the class: unknown:purpose, and the query ends there.
  assert.deepStrictEqual(await answers(d, ['on', 'off', 'on']), ['ok', 'unknown:purpose', 'err']);
  assert.deepStrictEqual(await answers(d, ['on', 'wait', 'off', 'wait']), ['ok', 'changed', 'ok', 'quiet']);
});

test('callbacksDrained never absorbs a callback that came by itself: the race is a DeviceError', async () => {
  // The C++ targets' callbacks_drained counts every emitted callback, so a timer firing between two
  // callins turns the second into a false `err`; here only settled callbacks hold a callin back.
  // The late callback is emitted by the test itself after the callin returned: no timing involved.
  let current = null;
  const def = new LearningPurpose('Late')
    .reset((sink) => {
      current = { sink };
      return current;
    })
    .callin('on', () => {})
    .callin('off', () => {})
    .callback('changed')
    .settle(() => settle.turns())
    .restrictTo(callbacksDrained())
    .timing({ tmaxMs: 20, tminMs: 0 })
    .build();
  const d = new NodeDevice(def);
  await d.reset();
  assert.strictEqual(await d.step('on'), 'ok');
  current.sink.emit('changed');  // after the settle step, by itself
  await assert.rejects(d.step('off'), (e) => e instanceof DeviceError &&
    /tmin violated: callback 'changed' arrived before callin 'off' could run/.test(e.message));
  await d.finish();
  // Emitted within the callin (settled), the same callback holds the next callin back (outside the purpose).
  const held = new NodeDevice(new LearningPurpose('Held')
    .reset((sink) => ({ sink }))
    .callin('on', (x) => x.sink.emit('changed'))
    .callin('off', () => {})
    .callback('changed')
    .restrictTo(callbacksDrained())
    .timing({ tmaxMs: 20, tminMs: 0 })
    .build());
  assert.deepStrictEqual(await answers(held, ['on', 'off']), ['ok', 'unknown:purpose']);
  assert.deepStrictEqual(await answers(held, ['on', 'wait', 'off']), ['ok', 'changed', 'ok']);
});

test('filters: atMostPending and both', async () => {
  const filter = both(atMostPending(['on'], ['changed'], 1), null);
  const d = new NodeDevice(toggle(5).purpose.restrictTo(filter).build());
  assert.deepStrictEqual(await answers(d, ['on', 'on']), ['ok', 'unknown:purpose']);
  assert.deepStrictEqual(await answers(d, ['on', 'wait', 'on', 'wait']), ['ok', 'changed', 'ok', 'changed']);
  assert.ok(d.outputs.includes('unknown:purpose'));
  // Without a purpose, the outputs are those of every class: ok, quiet, err, the callbacks.
  assert.deepStrictEqual(new NodeDevice(toggle(5).purpose.build()).outputs, ['ok', 'quiet', 'err', 'changed']);
});

test('merged callbacks and undeclared ones', async () => {
  const def = new LearningPurpose('Merge')
    .reset((sink) => ({ sink }))
    .callin('a', (x) => x.sink.emit('rawA'))
    .callin('b', (x) => x.sink.emit('rawB'))
    .callin('bad', (x) => x.sink.emit('nope'))
    .mergedCallback('any', ['rawA', 'rawB'])
    .timing({ tmaxMs: 10, tminMs: 0 })
    .build();
  const d = new NodeDevice(def);
  assert.deepStrictEqual(d.outputs, ['ok', 'quiet', 'err', 'any']);
  assert.deepStrictEqual(await answers(d, ['a', 'wait', 'b', 'wait']), ['ok', 'any', 'ok', 'any']);
  // a harness error, not a matter of timing: no timing data (the agent answers `device error`)
  await assert.rejects(d.run(['bad']), (e) => /undeclared callback 'nope' emitted in query #\d+ 'bad'/.test(e.message) &&
    e.timing === undefined);
});

test('variants: compare finds a difference, split makes one input per variant, first runs one', async () => {
  const build = () => new LearningPurpose('V')
    .reset(() => ({}))
    .variant('go', 'good', () => {})
    .variant('go', 'bad', () => {
      throw new Error('bad');
    })
    .timing({ tmaxMs: 5, tminMs: 0 })
    .build();
  await assert.rejects(new NodeDevice(build()).run(['go']), (e) => e instanceof NondeterminismError &&
    e.message === "variants of callin 'go' behave differently on 'go': with 'good' it answers 'ok', with 'bad' 'err'; " +
                  'split the symbol (--variants split) or drop a variant' &&
    // The data the agent sends as value.nondeterminism (device/PROTOCOL.md).
    JSON.stringify(e.data) === JSON.stringify({ inputs: ['go'], answers: [{ outputs: ['ok'], count: 1 }, { outputs: ['err'], count: 1 }] }));
  const split = new NodeDevice(build(), { variants: 'split' });
  assert.deepStrictEqual(split.inputs, ['go/good', 'go/bad', 'wait']);
  assert.deepStrictEqual(await answers(split, ['go/bad']), ['err']);
  assert.deepStrictEqual(await answers(new NodeDevice(build(), { variants: 'first' }), ['go']), ['ok']);
  // A session's step (no whole run) cannot compare the variants: refused, never the first alone.
  const stepped = new NodeDevice(build());
  await stepped.reset();
  await assert.rejects(stepped.step('go'), (e) => e instanceof DeviceError &&
    e.message.includes("callin 'go' has 2 variants, which --variants compare compares on whole runs only"));
  await stepped.finish();
});

test('a failing reset snippet is a DeviceError', async () => {
  const def = new LearningPurpose('R').reset(() => {
    throw new Error('no instance today');
  }).build();
  await assert.rejects(new NodeDevice(def).run([]),
    (e) => e instanceof DeviceError && e.message === 'R: the reset snippet failed: no instance today');
});

test('invalid definitions are refused with the problem named', () => {
  assert.throws(() => new LearningPurpose('X').build(), /class 'X': no reset snippet/);
  assert.throws(() => new LearningPurpose('X').reset(() => ({})).callin('wait', () => {}).build(),
    /class 'X': reserved name 'wait' used as a callin/);
  assert.throws(() => new LearningPurpose('X').reset(() => ({})).callin('a', () => {}).callback('a').build(),
    /class 'X': symbol 'a' declared twice/);
  assert.throws(() => new LearningPurpose('X').reset(() => ({})).timing({ tmaxMs: 1, tminMs: 2 }).build(),
    /class 'X': tmin is larger than tmax/);
  assert.throws(() => new LearningPurpose('X').callin('a', () => {}).callin('a', () => {}), /callin 'a' declared twice/);
});

test('environment callins are listed by the device and in the agent status, absent otherwise', async () => {
  const { Agent } = require(path.join(root, 'lib', 'agent'));
  const http = require('http');
  const build = (env) => {
    const p = new LearningPurpose('Pipe').reset(() => ({}))
      .callin('read', () => {}).callin('feed', () => {}).callin('hangup', () => {});
    for (const e of env) p.environment(e);
    return p.timing({ tmaxMs: 5, tminMs: 0 }).build();
  };
  assert.deepStrictEqual(new NodeDevice(build(['hangup', 'feed'])).environment, ['feed', 'hangup']);
  assert.deepStrictEqual(new NodeDevice(build([])).environment, []);
  assert.throws(() => new LearningPurpose('X').callin('a', () => {}).environment('b'), /environment: no callin 'b'/);
  const status = async (env) => {
    const agent = new Agent(() => new NodeDevice(build(env)), { token: 't0ken' });
    const port = await agent.start();
    try {
      return await new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/v1/status', headers: { Authorization: 'Bearer t0ken' } }, (res) => {
          let body = '';
          res.on('data', (d) => { body += d; });
          res.on('end', () => resolve(JSON.parse(body)));
        }).on('error', reject);
      });
    } finally {
      await agent.stop();
    }
  };
  assert.deepStrictEqual((await status(['feed'])).environment, ['feed']);
  assert.strictEqual('environment' in (await status([])), false);
});

// Mealy devices (issue 34 item 4): callins answer named outputs (a snippet returning a string),
// an undeclared name is learned, err goes on when declared not absorbing, and there is no `wait`.
test('a Mealy purpose: named outputs, a learned one, err not absorbing, no wait', async () => {
  const purpose = new LearningPurpose('Broker')
    .reset(() => ({ connected: false }))
    .callin('connect', (b) => {
      if (b.connected) { b.connected = false; return 'ConnectionClosed'; }
      b.connected = true;
      return 'CONNACK';
    })
    .callin('publish', (b) => {
      if (!b.connected) throw new Error('not connected');
      return 'PUBACK';
    })
    .callin('subscribe', (b) => (b.connected ? 'SUBACK' : undefined))
    .outputs('CONNACK', 'PUBACK', 'ConnectionClosed')
    .noWait()
    .errNotAbsorbing()
    .timing({ tmaxMs: 5, tminMs: 0 })
    .build();
  const d = new NodeDevice(purpose);
  assert.deepStrictEqual(d.inputs, ['connect', 'publish', 'subscribe']);
  assert.ok(!d.outputs.includes('SUBACK'));
  const r = await d.run(['publish', 'connect', 'publish', 'subscribe', 'connect', 'publish']);
  assert.deepStrictEqual(r.outputs, ['err', 'CONNACK', 'PUBACK', 'SUBACK', 'ConnectionClosed', 'err']);
  assert.strictEqual(r.steps, 6);  // err did not end the run
  assert.ok(d.outputs.includes('SUBACK'));  // learned when first answered
  // A name that cannot be an output is a device error, never an answer.
  const bad = new LearningPurpose('Bad').reset(() => ({})).callin('a', () => 'quiet').outputs().noWait().build();
  await assert.rejects(new NodeDevice(bad).run(['a']), DeviceError);
  // A callback purpose ignores what a snippet returns (as before).
  const plain = new LearningPurpose('Plain').reset(() => ({})).callin('a', () => 'CONNACK').build();
  assert.deepStrictEqual((await new NodeDevice(plain).run(['a'])).outputs, ['ok']);
});
