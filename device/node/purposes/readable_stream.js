// readable-stream's Readable (the npm mirror of Node's stream.Readable) at the pinned majors 2, 3
// and 4 (package.json aliases readable-stream-2/-3/-4), as a class under learning. The client is a
// typical consumer: it listens to `data`, `end`, `close` and `error` from the start (a `data`
// listener switches the stream to flowing mode) and drives the stream with
//   push      r.push('x')           push_null  r.push(null) (end of data)
//   read      r.read()              pause      r.pause()
//   resume    r.resume()            destroy    r.destroy()
// Streams deliver their events with process.nextTick: every callin settles for two turns of the
// event loop (setImmediate), after which every event it caused has been emitted; they are queued and
// `wait` returns them. No event of a Readable needs time to pass, so quiet is stable, tmax is short
// (a callback after a quiet wait would still be reported, never absorbed), tmin is 0.
// Learning purpose: at most one `push` not yet followed by `data` (the buffered chunks would
// otherwise be an unbounded counter), and no callin while an event is undelivered.
'use strict';

const { LearningPurpose, atMostPending, both, callbacksDrained, settle } = require('../lib/purpose');

function load(pkg) {
  try {
    return { module: require(pkg), version: require(`${pkg}/package.json`).version };
  } catch (e) {
    throw new Error(`cannot load npm package '${pkg}' (run \`npm ci\` in device/node, or scripts/quickstart.sh): ${e.message}`);
  }
}

/// The Readable of `readable-stream-<major>`; options: tmaxMs (default 15), tminMs (0).
function readable(major, options = {}) {
  const { module: rs, version } = load(`readable-stream-${major}`);
  return new LearningPurpose('Readable')
    .framework(`readable-stream-${version}`)
    .reset(async (sink) => {
      const r = new rs.Readable({ read() {} });
      for (const event of ['data', 'end', 'close', 'error']) r.on(event, () => sink.emit(event));
      await settle.turns();  // on('data') resumes the stream on the next tick
      return r;
    })
    .settle(() => settle.turns())
    .callin('push', (r) => {
      r.push('x');
    })
    .callin('push_null', (r) => {
      r.push(null);
    })
    .callin('read', (r) => {
      r.read();
    })
    .callin('pause', (r) => {
      r.pause();
    })
    .callin('resume', (r) => {
      r.resume();
    })
    .callin('destroy', (r) => {
      r.destroy();
    })
    .callback('data')
    .callback('end')
    .callback('close')
    .callback('error')
    .timing({ tmaxMs: options.tmaxMs ?? 15, tminMs: options.tminMs ?? 0 })
    .quietIsStable()
    .restrictTo(both(atMostPending(['push'], ['data'], 1), callbacksDrained()))
    .build();
}

module.exports = { readable };
