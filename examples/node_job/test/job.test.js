// Job's protocol as tests: one node:test test per transition of specs/job.yaml, run in this
// process against the purpose. No spec yet: the first local run learns it (with the typestar CLI)
// and writes specs/job.proposed.yaml for review. Run: `node --test` (CI=1 on CI: nothing is
// written; TYPESTAR_UPDATE=1 accepts a changed protocol into the spec).
'use strict';

const path = require('path');
const { specTests } = require('typestar-node-device/test');

specTests(path.join(__dirname, '..', 'specs', 'job.yaml'), require('../purposes/job'));
