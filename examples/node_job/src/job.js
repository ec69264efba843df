// The team's own class: a background Job, as an app would have it (an EventEmitter whose events
// arrive on a later tick). start() runs it once ('done' follows); cancel() before it ends stops it
// ('cancelled' follows instead). Version 1 refuses cancel() once the job ended or was cancelled.
//
// JOB_VERSION=2 simulates the upgrade this example is about: version 2 makes a late cancel() a
// harmless no-op instead of an error — a protocol change that the spec's tests must catch.
'use strict';

const { EventEmitter } = require('events');

const VERSION = process.env.JOB_VERSION === '2' ? 2 : 1;

class Job extends EventEmitter {
  constructor() {
    super();
    this.state = 'idle';  // idle, running, ended
  }

  start() {
    if (this.state !== 'idle') throw new Error(`start(): the job is ${this.state}`);
    this.state = 'running';
    process.nextTick(() => {
      if (this.state !== 'running') return;
      this.state = 'ended';
      this.emit('done');
    });
  }

  cancel() {
    if (this.state === 'ended') {
      if (VERSION >= 2) return;  // version 2: a late cancel() is ignored
      throw new Error('cancel(): the job has ended');
    }
    if (this.state === 'idle') throw new Error('cancel(): the job has not started');
    this.state = 'ended';
    process.nextTick(() => this.emit('cancelled'));
  }
}

Job.version = `${VERSION}.0.0`;

module.exports = { Job };
