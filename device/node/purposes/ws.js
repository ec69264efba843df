// The `ws` WebSocket client at the pinned majors 7 and 8 (package.json aliases ws-7, ws-8), as a
// class under learning, against a loopback echo server the reset snippet starts per query
// (127.0.0.1, ephemeral port). The server is fixed — ws 8's WebSocketServer for both clients — so
// every difference comes from the client. It echoes each message with the frame type it received.
//   connect    new WebSocket(url) (refused when this query already made one)
//   send       ws.send('x')       close      ws.close()       terminate  ws.terminate()
// (send, close and terminate before connect are refused: there is no object to call.)
// Callbacks (the events, prefixed `on_`): on_open, on_message_string / on_message_buffer (the
// `message` listener's data is a string, or not), on_close, on_error.
// Everything happens on loopback in milliseconds: a callin returns once the client is no longer
// CONNECTING or CLOSING and then neither the client nor the server saw an event for `settleMs`; the
// events it caused are queued and `wait` returns them. tmax 30 ms, tmin 0, quiet stable.
// Learning purpose: no callin while an event is undelivered.
'use strict';

const { performance } = require('perf_hooks');
const { LearningPurpose, callbacksDrained, settle } = require('../lib/purpose');

function load(pkg) {
  try {
    return { module: require(pkg), version: require(`${pkg}/package.json`).version };
  } catch (e) {
    throw new Error(`cannot load npm package '${pkg}' (run \`npm ci\` in device/node, or scripts/quickstart.sh): ${e.message}`);
  }
}

class Session {
  constructor(WebSocket, Server, sink) {
    this.WebSocket = WebSocket;
    this.sink = sink;
    this.activity = performance.now();
    this.client = null;
    this.peers = new Set();
    this.server = new Server({ host: '127.0.0.1', port: 0 });
    this.server.on('connection', (peer) => {
      this.touch();
      this.peers.add(peer);
      peer.on('message', (data, isBinary) => {
        this.touch();
        peer.send(data, { binary: isBinary === true });
      });
      peer.on('close', () => this.touch());
      peer.on('error', () => this.touch());
    });
    this.server.on('error', () => this.touch());
  }
  touch() {
    this.activity = performance.now();
  }
  listening() {
    return new Promise((resolve, reject) => {
      this.server.once('listening', resolve);
      this.server.once('error', reject);
    });
  }
  connect() {
    if (this.client) throw new Error('this query already made its WebSocket');
    const ws = new this.WebSocket(`ws://127.0.0.1:${this.server.address().port}/`);
    this.client = ws;
    const report = (name) => {
      this.touch();
      this.sink.emit(name);
    };
    ws.on('open', () => report('on_open'));
    ws.on('message', (data) => report(typeof data === 'string' ? 'on_message_string' : 'on_message_buffer'));
    ws.on('close', () => report('on_close'));
    ws.on('error', () => report('on_error'));
  }
  need() {
    if (!this.client) throw new Error('no WebSocket yet');
    return this.client;
  }
  /// Until the client is neither CONNECTING nor CLOSING, then no event for `idleMs`.
  async settle(idleMs) {
    const start = performance.now();
    while (this.client && (this.client.readyState === 0 || this.client.readyState === 2)) {
      if (performance.now() - start > 2000) throw new Error('the WebSocket stayed CONNECTING or CLOSING for 2 s');
      await new Promise((r) => setTimeout(r, 1));
    }
    await settle.idle(() => this.activity, idleMs);
  }
  async teardown() {
    if (this.client) this.client.terminate();
    for (const p of this.peers) p.terminate();
    await new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/// The ws client of `ws-<major>`; options: tmaxMs (default 30), tminMs (0), settleMs (10).
function websocket(major, options = {}) {
  const { module: WebSocket, version } = load(`ws-${major}`);
  const { module: server } = load('ws-8');
  const settleMs = options.settleMs ?? 10;
  return new LearningPurpose('WebSocket')
    .framework(`ws-${version}`)
    .reset(async (sink) => {
      const s = new Session(WebSocket, server.Server, sink);
      await s.listening();
      return s;
    })
    .teardown((s) => s.teardown())
    .settle((s) => s.settle(settleMs))
    .callin('connect', (s) => s.connect())
    .callin('send', (s) => s.need().send('x'))
    .callin('close', (s) => s.need().close())
    .callin('terminate', (s) => s.need().terminate())
    .callback('on_open')
    .callback('on_message_string')
    .callback('on_message_buffer')
    .callback('on_close')
    .callback('on_error')
    .timing({ tmaxMs: options.tmaxMs ?? 30, tminMs: options.tminMs ?? 0 })
    .quietIsStable()
    .restrictTo(callbacksDrained())
    .build();
}

module.exports = { websocket };
