// The learning purpose of Job (typestar's LearningPurpose, as `typestar-node-device --purpose
// ./purposes/job.js` serves it): a fresh Job per query with its events on the sink, the two
// callins, the two callbacks. Events come on the next tick: every callin settles for two turns of
// the event loop, so `wait` returns them and quiet is stable (nothing happens by itself later).
'use strict';

const { LearningPurpose, callbacksDrained, settle } = require('typestar-node-device');
const { Job } = require('../src/job');

module.exports = new LearningPurpose('Job')
  .framework(`job-${Job.version}`)
  .reset((sink) => {
    const job = new Job();
    job.on('done', () => sink.emit('done'));
    job.on('cancelled', () => sink.emit('cancelled'));
    return job;
  })
  .callin('start', (job) => job.start())    // a throw answers `err`
  .callin('cancel', (job) => job.cancel())
  .callback('done')
  .callback('cancelled')
  .settle(() => settle.turns())
  .timing({ tmaxMs: 20, tminMs: 0 })
  .quietIsStable()
  .restrictTo(callbacksDrained())            // no callin while an event is undelivered
  .build();
