// The Node agent's protocol rules and limits on hostile input (issue 26 item 6, device/PROTOCOL.md
// Transport and limits), over raw TCP against an in-process Agent: a repeated Authorization header
// is 400, the `Bearer` scheme is case-insensitive, another HTTP version is 505, a deeply nested body
// is 400 (never a 500 from a recursion), the token is checked before a byte of the body is read,
// connections are capped (503) and a stalled request is closed after the connection timeout.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const net = require('net');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..', 'device', 'node');
const { Agent, MAX_JSON_DEPTH } = require(path.join(root, 'lib', 'agent'));
const { NodeDevice } = require(path.join(root, 'lib', 'device'));
const { asynctask } = require(path.join(root, 'purposes', 'asynctask'));

const TOKEN = 'limits-test-token';

async function withAgent(config, body) {
  const agent = new Agent(() => new NodeDevice(asynctask({ delayMs: 5, tmaxMs: 50, tminMs: 0 })), { token: TOKEN, ...config });
  await agent.start();
  try {
    await body(agent);
  } finally {
    await agent.stop();
  }
}

/// Sends `text` on a fresh connection; resolves with everything the agent sent until it closed the
/// connection (or `waitMs` passed: then `closed` is false).
function exchange(port, text, waitMs = 3000) {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => c.write(text));
    let data = '';
    const timer = setTimeout(() => {
      c.destroy();
      resolve({ data, closed: false });
    }, waitMs);
    c.on('data', (d) => { data += d; });
    c.on('error', () => {});
    c.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closed: true });
    });
    c.on('error', reject);
  });
}

function status(answer) {
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(answer.data);
  return m ? Number(m[1]) : 0;
}

function errorCode(answer) {
  const body = answer.data.slice(answer.data.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body).value.error;
}

const post = (pathName, body, headers = `Authorization: Bearer ${TOKEN}\r\n`) =>
  `POST ${pathName} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;

test('a second Authorization header is refused with 400, whichever comes first', async () => {
  await withAgent({}, async (agent) => {
    for (const headers of [`Authorization: Bearer ${TOKEN}\r\nAuthorization: Bearer wrong\r\n`,
                           `Authorization: Bearer wrong\r\nauthorization: Bearer ${TOKEN}\r\n`,
                           `Authorization: Bearer ${TOKEN}\r\nAuthorization: Bearer ${TOKEN}\r\n`]) {
      const a = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
      assert.strictEqual(status(a), 400, a.data);
      assert.strictEqual(errorCode(a), 'invalid argument');
      assert.ok(a.closed, 'the connection is closed after a malformed request');
    }
  });
});

test('a header value with a control character is 400 JSON, and the connection closed', async () => {
  await withAgent({}, async (agent) => {
    for (const bad of ['X-A: a\x1bb', 'X-A: a\x7fb', 'X-A: a\x00b']) {
      const a = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n${bad}\r\n\r\n`);
      assert.strictEqual(status(a), 400, JSON.stringify(a.data));
      assert.strictEqual(errorCode(a), 'invalid argument');
      assert.ok(a.closed);
    }
  });
});

test('the Bearer scheme is case-insensitive; the token is not', async () => {
  await withAgent({}, async (agent) => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const a = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${scheme} ${TOKEN}\r\nConnection: close\r\n\r\n`);
      assert.strictEqual(status(a), 200, `${scheme}: ${a.data}`);
    }
    for (const value of [`Basic ${TOKEN}`, `Bearer ${TOKEN.toUpperCase()}`, `Bearer${TOKEN}`, TOKEN]) {
      const a = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${value}\r\nConnection: close\r\n\r\n`);
      assert.strictEqual(status(a), 401, `${value}: ${a.data}`);
    }
  });
});

test('HTTP versions other than 1.0 and 1.1 are answered 505 and closed', async () => {
  await withAgent({}, async (agent) => {
    for (const version of ['HTTP/2.0', 'HTTP/1.2', 'HTTP/3.0', 'HTTP/0.9']) {
      const a = await exchange(agent.port, `GET /v1/status ${version}\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      assert.strictEqual(status(a), 505, `${version}: ${a.data}`);
      assert.strictEqual(errorCode(a), 'invalid argument');
      assert.ok(a.closed);
    }
    const ok = await exchange(agent.port, `GET /v1/status HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    assert.strictEqual(status(ok), 200, ok.data);
  });
});

test('a deeply nested body is 400 and the agent goes on serving', async () => {
  await withAgent({}, async (agent) => {
    const deep = (n) => `{"inputs": ${'['.repeat(n)}${']'.repeat(n)}}`;
    for (const body of [deep(100000), deep(MAX_JSON_DEPTH + 1), `{"request_id": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`]) {
      for (const where of ['/v1/run', '/v1/sessions']) {
        const a = await exchange(agent.port, post(where, body));
        assert.strictEqual(status(a), 400, `${where}: ${a.data.slice(0, 300)}`);
        assert.strictEqual(errorCode(a), 'invalid argument');
        assert.match(a.data, /"the request body nests JSON deeper than 64 levels"/);
      }
    }
    // Brackets inside strings are text, not nesting.
    const a = await exchange(agent.port, post('/v1/run', `{"inputs": ["${'['.repeat(1000)}"]}`));
    assert.strictEqual(status(a), 400);
    assert.match(a.data, /unknown input \\"\[{128}\.\.\.\\"/);
    // Control characters of an echoed name are escaped, never raw.
    const e = await exchange(agent.port, post('/v1/run', '{"inputs": ["a\\u001b[31mb\\nc"]}'));
    assert.strictEqual(status(e), 400);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(e.data.slice(e.data.indexOf('\r\n\r\n') + 4)), e.data);
    assert.match(e.data, /a\\\\u001b\[31mb\\\\nc/);
    // Within the limit: an answer about the content (an input must be a name), not about depth.
    const b = await exchange(agent.port, post('/v1/run', deep(MAX_JSON_DEPTH - 1)));
    assert.strictEqual(status(b), 400);
    assert.match(b.data, /an input is a array/);
    const c = await exchange(agent.port, post('/v1/run', '{"inputs": ["execute", "wait"]}'));
    assert.strictEqual(status(c), 200, c.data);
    assert.match(c.data, /"outputs":\["ok","onPostExecute"\]/);
  });
});

test('the token is checked before the body is read: an unauthorised stalled body is answered at once', async () => {
  await withAgent({}, async (agent) => {
    const start = Date.now();
    // Announces 100 KB, sends 10 bytes, and stalls: the answer must not wait for the rest.
    const a = await exchange(agent.port,
      'POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Length: 100000\r\n\r\n{"inputs":', 5000);
    assert.strictEqual(status(a), 401, a.data);
    assert.ok(a.closed, 'the connection of an unauthorised body is closed');
    assert.ok(Date.now() - start < 2000, `answered after ${Date.now() - start} ms`);
    // Without a body too: an unauthorised connection is closed.
    const b = await exchange(agent.port, 'GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n', 2000);
    assert.strictEqual(status(b), 401, b.data);
    assert.ok(b.closed);
    // An oversized body is refused from its Content-Length, before it is read.
    const c = await exchange(agent.port,
      `POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 5000000\r\n\r\n{`, 5000);
    assert.strictEqual(status(c), 413, c.data);
    assert.ok(c.closed);
  });
});

test('connections beyond maxConnections are answered 503 and closed; a freed slot is reused', async () => {
  await withAgent({ maxConnections: 3 }, async (agent) => {
    const held = [];
    for (let i = 0; i < 3; ++i) {
      held.push(await new Promise((resolve) => {
        const c = net.connect(agent.port, '127.0.0.1', () => resolve(c));
      }));
    }
    await new Promise((r) => setTimeout(r, 50));
    const a = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    assert.strictEqual(status(a), 503, a.data);
    assert.strictEqual(errorCode(a), 'too many connections');
    assert.ok(a.closed);
    held.pop().destroy();
    await new Promise((r) => setTimeout(r, 100));
    const b = await exchange(agent.port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`);
    assert.strictEqual(status(b), 200, b.data);
    for (const c of held) c.destroy();
  });
});

test('a connection that stalls mid-request or sends nothing is closed after the connection timeout', async () => {
  await withAgent({ connectionTimeoutMs: 600 }, async (agent) => {
    const start = Date.now();
    const silent = exchange(agent.port, '', 8000);
    const stalled = exchange(agent.port,
      `POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 1000\r\n\r\n{"inputs":`, 8000);
    const [s, t] = await Promise.all([silent, stalled]);
    assert.ok(s.closed, 'a connection that starts no request is closed');
    assert.strictEqual(s.data, '', 'closed without an answer');
    assert.ok(t.closed, 'a request whose body stalls is closed');
    assert.strictEqual(t.data, '', 'closed without an answer');
    assert.ok(Date.now() - start < 6000, `closed after ${Date.now() - start} ms`);
    for (let i = 0; i < 50 && agent.connections.size > 0; ++i) await new Promise((r) => setTimeout(r, 10));
    assert.strictEqual(agent.connections.size, 0, 'the agent still holds the closed connections');
  });
});

test('a late callback is answered as a timing violation with its data, never as an answer', async () => {
  // Before, a `device error` with text only: a client could neither re-run the word nor tell a
  // callback the spec does not have from a late one. `onPostExecute` comes 60 ms after execute;
  // with tmax 20 the session's wait answers quiet, and the next step finds the violation.
  const agent = new Agent(() => new NodeDevice(asynctask({ delayMs: 60, tmaxMs: 20, tminMs: 0 })), { token: TOKEN });
  await agent.start();
  const body = (a) => JSON.parse(a.data.slice(a.data.indexOf('\r\n\r\n') + 4));
  try {
    const created = await exchange(agent.port, post('/v1/sessions', '{}'));
    assert.strictEqual(status(created), 201, created.data);
    const id = body(created).session;
    const callin = await exchange(agent.port, post(`/v1/sessions/${id}/callin`, '{"seq": 0, "callin": "execute"}'));
    assert.strictEqual(body(callin).output, 'ok', callin.data);
    const wait = await exchange(agent.port, post(`/v1/sessions/${id}/wait`, '{"seq": 1}'));
    assert.strictEqual(body(wait).output, 'quiet', wait.data);
    await new Promise((r) => setTimeout(r, 150));
    const a = await exchange(agent.port, post(`/v1/sessions/${id}/wait`, '{"seq": 2}'));
    assert.strictEqual(status(a), 500, a.data);
    const value = body(a).value;
    assert.strictEqual(value.error, 'timing violation');
    assert.match(value.message, /tmax too small: callback 'onPostExecute' arrived/);
    assert.deepStrictEqual({ ...value.timing, delay_ms: value.timing.delay_ms >= 20 },
      { kind: 'late', callback: 'onPostExecute', delay_ms: true, tmax_ms: 20, tmin_ms: 0, earlier_query: false, runs: 1 });
  } finally {
    await agent.stop();
  }
});
