// Node core's string_decoder.StringDecoder('utf8') as a Mealy device (device/PROTOCOL.md, "Mealy
// devices"): no callbacks, so no `wait`; each write answers the text it decoded, an output named by
// that text ("€", "a", or ok for nothing). The decoder holds the bytes of an incomplete UTF-8
// sequence between writes: the three bytes of "€" (E2 82 AC) written one by one answer ok, ok, "€";
// `end` flushes an incomplete sequence as U+FFFD. Outputs are learned as they are first answered.
'use strict';

const { StringDecoder } = require('string_decoder');

/// A decoded text as an output name: "" is ok; U+FFFD is named "U+FFFD" (readable in specs).
function named(text) {
  if (text === '') return 'ok';
  return [...text].map((ch) => (ch === '\ufffd' ? 'U+FFFD' : ch)).join('');
}

function stringDecoder(options) {
  const { LearningPurpose } = require('../lib/purpose');
  const write = (bytes) => (d) => named(d.write(Buffer.from(bytes)));
  return new LearningPurpose('string_decoder.StringDecoder')
    .framework(`node-${process.versions.node}`)
    .reset(() => new StringDecoder('utf8'))
    .callin('e2', write([0xe2]))
    .callin('82', write([0x82]))
    .callin('ac', write([0xac]))
    .callin('a', write([0x61]))
    .callin('end', (d) => named(d.end()))
    .outputs()
    .noWait()
    .timing({ tmaxMs: options.tmaxMs ?? 10, tminMs: 0 })
    .build();
}

module.exports = { stringDecoder };
