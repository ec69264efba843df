// `require('typestar-node-device/test')`: specTests(SPEC, purpose), a spec as node:test tests (one
// per transition, in-process against the purpose; lib/spec_tests.js).
'use strict';

module.exports = require('./lib/spec_tests');
