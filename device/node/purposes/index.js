// The learning purposes the Node agent serves (`--purpose NAME`, `--list`). Each entry makes a
// ClassDefinition (or a data device's DataDefinition) from the agent's options; the npm packages are loaded only by the purpose chosen.
'use strict';

const purposes = {
  asynctask: {
    describe: 'AsyncTask simulated with timers (specs/asynctask.yaml); for protocol tests',
    make: (o) => require('./asynctask').asynctask(o),
  },
  'asynctask-purpose': {
    describe: 'AsyncTask with a learning purpose: at most one cancel pending (specs/asynctask_purpose.yaml); for protocol tests',
    make: (o) => require('./asynctask').asynctaskPurpose(o),
  },
  'readable-stream-2': {
    describe: 'Readable of readable-stream 2.3.x (npm alias readable-stream-2)',
    make: (o) => require('./readable_stream').readable(2, o),
  },
  'readable-stream-3': {
    describe: 'Readable of readable-stream 3.6.x (npm alias readable-stream-3)',
    make: (o) => require('./readable_stream').readable(3, o),
  },
  'readable-stream-4': {
    describe: 'Readable of readable-stream 4.x (npm alias readable-stream-4)',
    make: (o) => require('./readable_stream').readable(4, o),
  },
  'ws-7': {
    describe: 'WebSocket client of ws 7.x (npm alias ws-7) against a loopback echo server (ws 8)',
    make: (o) => require('./ws').websocket(7, o),
  },
  'ws-8': {
    describe: 'WebSocket client of ws 8.x (npm alias ws-8) against a loopback echo server (ws 8)',
    make: (o) => require('./ws').websocket(8, o),
  },
  'string-decoder': {
    describe: "Node core's string_decoder.StringDecoder('utf8') as a Mealy device (named outputs, no wait)",
    make: (o) => require('./string_decoder').stringDecoder(o),
  },
  'event-emitter': {
    describe: "Node core's events.EventEmitter listener limit as a data device (a register automaton: setMaxListeners(n), getMaxListeners())",
    make: () => require('./event_emitter').maxListeners(),
  },
  'net-socket': {
    describe: "Node core's net.Socket (this Node) against a loopback echo peer",
    make: (o) => require('./net_socket').netSocket(o),
  },
};

// A team's own purpose: `--purpose ./my_purpose.js` (lib/purpose.js, loadPurposeModule).
const { loadPurposeModule } = require('../lib/purpose');

module.exports = { purposes, loadPurposeModule };
