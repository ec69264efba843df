// Node core's net.Socket (the machine's Node version) as a class under learning, against a loopback
// echo peer the reset snippet starts per query (net.createServer on 127.0.0.1, ephemeral port; the
// peer echoes what it reads and, with allowHalfOpen false, ends its side when the client ends).
//   connect  socket.connect(port, '127.0.0.1')     write    socket.write('x')
//   end      socket.end()                          destroy  socket.destroy()
// Callbacks, the socket's events prefixed `on_`: on_connect, on_data, on_end, on_finish, on_close,
// on_error. A callin returns once the socket is no longer connecting and then neither it nor the
// peer saw an event for `settleMs` (10 ms): the events it caused are queued and `wait` returns them.
// tmax 30 ms, tmin 0, quiet stable. Purpose: no callin while an event is undelivered, at most one
// `write` not yet answered (`on_data`, or the socket failed or closed: pending writes would be a
// counter), one `connect` per query
// (reconnecting is another protocol: with it, B = 2 and B = 3 specs were each refuted by a longer
// word), and no `end` before `connect`: an `end()` on an unconnected socket is remembered through
// `destroy` and a later `connect` (`end destroy wait connect wait write` -> the write is refused),
// which needs B >= 4 to see; see docs/upgrades/net_socket.md.
'use strict';

const net = require('net');
const { performance } = require('perf_hooks');
const { LearningPurpose, atMostPending, both, callbacksDrained, settle } = require('../lib/purpose');

class Session {
  constructor(sink) {
    this.sink = sink;
    this.activity = performance.now();
    this.peers = new Set();
    this.server = net.createServer((peer) => {
      this.touch();
      this.peers.add(peer);
      peer.on('data', (d) => {
        this.touch();
        peer.write(d);
      });
      for (const e of ['end', 'close', 'error']) peer.on(e, () => this.touch());
    });
    this.socket = new net.Socket();
    for (const e of ['connect', 'data', 'end', 'finish', 'close', 'error']) {
      this.socket.on(e, () => {
        this.touch();
        sink.emit(`on_${e}`);
      });
    }
  }
  touch() {
    this.activity = performance.now();
  }
  listening() {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
  }
  async settle(idleMs) {
    const start = performance.now();
    while (this.socket.connecting) {
      if (performance.now() - start > 2000) throw new Error('the socket stayed connecting for 2 s');
      await new Promise((r) => setTimeout(r, 1));
    }
    await settle.idle(() => this.activity, idleMs);
  }
  async teardown() {
    this.socket.destroy();
    for (const p of this.peers) p.destroy();
    await new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/// One `connect` per query, and `end` only after it.
const connectOnce = (history, next) => {
  const connected = history.some((s) => s.input === 'connect' && s.output === 'ok');
  if (next === 'connect') return !connected;
  if (next === 'end') return connected;
  return true;
};

/// options: tmaxMs (default 30), tminMs (0), settleMs (10).
function netSocket(options = {}) {
  const settleMs = options.settleMs ?? 10;
  return new LearningPurpose('net.Socket')
    .framework(`node-${process.versions.node}`)
    .reset(async (sink) => {
      const s = new Session(sink);
      await s.listening();
      return s;
    })
    .teardown((s) => s.teardown())
    .settle((s) => s.settle(settleMs))
    .callin('connect', (s) => {
      s.socket.connect(s.server.address().port, '127.0.0.1');
    })
    .callin('write', (s) => {
      s.socket.write('x');
    })
    .callin('end', (s) => {
      s.socket.end();
    })
    .callin('destroy', (s) => {
      s.socket.destroy();
    })
    .callback('on_connect')
    .callback('on_data')
    .callback('on_end')
    .callback('on_finish')
    .callback('on_close')
    .callback('on_error')
    .timing({ tmaxMs: options.tmaxMs ?? 30, tminMs: options.tminMs ?? 0 })
    .quietIsStable()
    .restrictTo(both(both(atMostPending(['write'], ['on_data', 'on_error', 'on_close'], 1), callbacksDrained()), connectOnce))
    .build();
}

module.exports = { netSocket };
