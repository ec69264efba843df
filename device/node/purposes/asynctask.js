// AsyncTask, simulated on Node's event loop: the class of DroidStar's Fig. 3 (specs/asynctask.yaml),
// mirroring typestar-device's `asynctask` (src/device/simulated/classes.cpp). It exercises the agent
// with timer-driven (truly asynchronous) callbacks: the protocol tests learn it over HTTP and compare
// with the committed spec, and make its callback late on purpose (--delay-ms above --tmax).
'use strict';

const { EventEmitter } = require('events');
const { LearningPurpose, atMostPending } = require('../lib/purpose');

class IllegalStateException extends Error {}

/// execute() starts the task, which ends with onPostExecute() after `delayMs`; cancel() before the
/// result ends it with onCancelled() instead; execute() after cancel() is accepted but never runs.
class AsyncTask extends EventEmitter {
  constructor(delayMs) {
    super();
    this.delayMs = delayMs;
    this.status = 'pending';
    this.cancelled = false;
    this.finished = false;
    this.timer = null;
  }
  execute() {
    if (this.status === 'running') throw new IllegalStateException('Cannot execute task: the task is already running.');
    if (this.status === 'finished') throw new IllegalStateException('Cannot execute task: the task has already been executed');
    this.status = 'running';
    if (this.cancelled) return;
    this.post();
  }
  cancel() {
    if (this.cancelled || this.finished) return false;
    this.cancelled = true;
    this.post();
    return true;
  }
  post() {
    this.timer = setTimeout(() => this.finish(), this.delayMs);
  }
  finish() {
    if (this.finished) return;
    this.finished = true;
    this.status = 'finished';
    this.emit(this.cancelled ? 'cancelled' : 'postExecute');
  }
}

/// options: delayMs (default 15), tmaxMs (80), tminMs (1).
function purpose(options = {}) {
  const delayMs = options.delayMs ?? 15;
  return new LearningPurpose('AsyncTask')
    .framework(`node-${process.versions.node}-sim`)
    .reset((sink) => {
      const task = new AsyncTask(delayMs);
      task.on('cancelled', () => sink.emit('onCancelled'));
      task.on('postExecute', () => sink.emit('onPostExecute'));
      return task;
    })
    // No teardown: a timer still running after the query fires later, and its callback is then
    // reported (a tmax violation when the query's last `wait` answered quiet), as in typestar-device.
    .callin('cancel', (task) => task.cancel())
    .callin('execute', (task) => task.execute())
    .callback('onCancelled')
    .callback('onPostExecute')
    .timing({ tmaxMs: options.tmaxMs ?? 80, tminMs: options.tminMs ?? 1 })
    .quietIsStable();
}

/// AsyncTask learned with a learning purpose (specs/asynctask_purpose.yaml), mirroring typestar-device's
/// `asynctask_purpose`: at most one cancel() waiting for its onCancelled(), so a second cancel() there
/// is outside the purpose (answered err marked outside_purpose over /v1, never run).
function asynctaskPurpose(options = {}) {
  return purpose(options).restrictTo(atMostPending(['cancel'], ['onCancelled'], 1)).build();
}

module.exports = { asynctask: (options = {}) => purpose(options).build(), asynctaskPurpose, AsyncTask };
