// `import { specTests } from 'typestar-node-device/test'`: the ES module face of test.js (the spec
// runner, lib/spec_tests.js), the same module instance as `require('typestar-node-device/test')`.
import runner from './test.js';

export const { specTests, formatTrace, proposedPath, envTrue, predict } = runner;
export default runner;
