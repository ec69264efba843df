// typestar-node-device as a library: the learning-purpose API (a team's own purposes; DataPurpose for
// a data device, learned as a register automaton), the device that runs one in-process, the /v1 agent that serves one over HTTP, and the node:test runner of
// specs (also `require('typestar-node-device/test')`). The agent's command line is agent.js
// (`typestar-node-device`, package.json `bin`).
'use strict';

const purpose = require('./lib/purpose');
const { NodeDevice, CallbackSink, DeviceError, NondeterminismError } = require('./lib/device');
const { DataPurpose, DataDefinition, DataDevice, answer } = require('./lib/data');
const { Agent, PROTOCOL } = require('./lib/agent');
const { specTests } = require('./lib/spec_tests');

module.exports = {
  ...purpose,
  NodeDevice, CallbackSink, DeviceError, NondeterminismError,
  DataPurpose, DataDefinition, DataDevice, answer,
  Agent, PROTOCOL,
  specTests,
};
