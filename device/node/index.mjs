// `import { LearningPurpose, specTests } from 'typestar-node-device'`: the ES module face of index.js
// (package.json `exports`, condition `import`). The names are listed one by one: Node cannot see
// them through index.js's spread, and one module instance serves both faces (no dual-package hazard).
import pkg from './index.js';

export const {
  LearningPurpose, ClassDefinition, definitionOf, loadPurposeModule, atMostPending, both, callbacksDrained,
  settle, RESERVED, NodeDevice, CallbackSink, DeviceError, NondeterminismError, DataPurpose, DataDefinition, DataDevice,
  answer, Agent, PROTOCOL, specTests,
} = pkg;
export default pkg;
