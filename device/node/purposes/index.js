// The learning purposes the Node agent serves (`--purpose NAME`, `--list`). Each entry makes a
// ClassDefinition from the agent's options; the npm packages are loaded only by the purpose chosen.
'use strict';

const purposes = {
  asynctask: {
    describe: 'AsyncTask simulated with timers (specs/asynctask.yaml); for protocol tests',
    make: (o) => require('./asynctask').asynctask(o),
  },
};

module.exports = { purposes };
