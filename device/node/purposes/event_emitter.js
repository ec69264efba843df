// Node core's events.EventEmitter as a data device (lib/data.js): its listener limit, set by
// setMaxListeners(n) (a RangeError, code ERR_OUT_OF_RANGE, below 0) and read by getMaxListeners()
// (10, EventEmitter.defaultMaxListeners, until set). The class compares n with 0 and answers 10 before
// any set, so both are declared constants: a register automaton over the signature can then say so
// (without them, no guard can name 0). Learned as specs/ra/node_event_emitter.yaml.
'use strict';

const { EventEmitter } = require('events');
const { DataPurpose, answer } = require('../lib/data');

function maxListeners() {
  return new DataPurpose('node:events.EventEmitter').framework(`node ${process.version}`)
    .reset(() => new EventEmitter())
    .callin('setMaxListeners', ['n'], (e, [n]) => {
      e.setMaxListeners(n);
      return 'ok';
    })
    .callin('getMaxListeners', [], (e) => answer('max', e.getMaxListeners()))
    .output('ok').output('max', 'n').output('range')
    .constant('zero', 0).constant('ten', EventEmitter.defaultMaxListeners)
    .refusedAs('range', 'ERR_OUT_OF_RANGE')
    .build();
}

module.exports = { maxListeners };
