// NodeDevice: runs a ClassDefinition (lib/purpose.js) on Node's event loop, as typestar's
// InProcessDevice (src/device/inprocess.cpp) runs one in C++. A fresh instance per query (reset),
// callins then `wait`; callbacks are queued in arrival order, also while a callin (or its settle
// step) runs; `wait` takes the oldest or answers `quiet` after tmax (DroidStar §5.2). A callback
// arriving after a `wait` answered `quiet` (tmax too small), sooner than tmin after a callin, or
// between two steps, and an undeclared callback, are recorded and thrown as DeviceError before the
// device answers again — never a wrong output. A callin that throws (or rejects) answers `err`, and
// `err` is absorbing. One query at a time per device; the agent gives each session its own device.
'use strict';

const { performance } = require('perf_hooks');

/// The output of a callin the learning purpose denies (not run; the query ends there like after
/// `err`): not the class's answer. Over /v1 it is `err` marked `outside_purpose` (device/PROTOCOL.md);
/// the C++ name is typestar::kOutsidePurpose.
const OUTSIDE_PURPOSE = 'unknown:purpose';
/// Names a named callin output cannot have (`err` may be one when it is not absorbing).
const RESERVED_OUTPUTS = new Set(['ok', 'err', 'quiet', 'wait']);

class DeviceError extends Error {}
/// Answers to one word that differ. `data` ({inputs, answers: [{outputs, count}, ...]}) is what the
/// agent sends as `value.nondeterminism` (device/PROTOCOL.md), so a client reports the device as not
/// deterministic, not as a harness failure.
class NondeterminismError extends Error {
  constructor(message, data) {
    super(message);
    this.data = data;
  }
}

function formatMs(ms) {
  return `${ms.toFixed(1)} ms`;
}

/// Device-level record shared by every query's sink: symbol table and timing observations.
class Monitor {
  constructor(deviceName, sources, timing) {
    this.deviceName = deviceName;
    this.sources = sources;  // Map raw event name -> output symbol
    this.timing = timing;
    this.report = { callbacks: 0, late: 0, tmaxViolations: 0, tminViolations: 0, harnessErrors: 0, messages: [] };
    this.pending = [];       // violations not yet thrown
    this.pendingDetails = [];  // each one's detail (null: a harness error), in the same order
  }
  /// `detail`: a timing violation as data, {kind: 'tmax' | 'tmin' | 'queued', symbol, delayMs, query}
  /// (the query it broke): the agent answers it as a `timing violation` with that data (PROTOCOL.md);
  /// a record without one (a harness error) stays a `device error`.
  record(message, counter, detail = null) {
    ++this.report[counter];
    if (this.report.messages.length < 16) this.report.messages.push(message);
    this.pending.push(message);
    this.pendingDetails.push(detail);
  }
}

/// One query's instance: its callback queue and what the query has done so far.
class Epoch {
  constructor(monitor, query) {
    this.monitor = monitor;
    this.query = query;
    this.queue = [];
    this.open = true;
    this.muted = false;         // set when the teardown snippet starts
    this.quietDeclared = false; // last step: `wait` answered quiet, no callin since
    this.quietWaitStart = 0;
    this.lastCallin = null;     // performance.now() at the start of the latest callin
    this.lastCallinName = '';
    this.word = [];
    this.waiter = null;         // resolves a pending `wait`
    this.stepping = false;      // a callin (or its settle step) is running
    this.history = [];          // the device's [{input, output}] of this query (NodeDevice#step)
  }
  where() {
    return `query #${this.query} '${this.word.join(' ')}'`;
  }
  wake() {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }
}

/// Where listener code reports callbacks; handed to the reset snippet. `emit` never throws; it may
/// be called at any time, also after the query ended (then it is a late callback, counted, or a tmax
/// violation when the query's last `wait` answered quiet).
class CallbackSink {
  constructor(epoch) {
    this.epoch = epoch;
  }
  emit(name) {
    const e = this.epoch;
    const m = e.monitor;
    if (e.muted) return;
    const now = performance.now();
    const symbol = m.sources.get(name);
    if (symbol === undefined) {
      m.record(`undeclared callback '${name}' emitted in ${e.where()}`, 'harnessErrors');
      e.wake();
      return;
    }
    if (e.quietDeclared) {
      m.record(`tmax too small: callback '${symbol}' arrived ${formatMs(now - e.quietWaitStart)} after the start ` +
               `of a \`wait\` that answered quiet (tmax ${m.timing.tmaxMs} ms) in ${e.where()}`, 'tmaxViolations',
               { kind: 'tmax', symbol, delayMs: now - e.quietWaitStart, query: e.query });
      e.wake();  // ends the quiet grace of a run (NodeDevice#runOnce)
      return;
    }
    if (!e.open) {
      ++m.report.late;
      return;
    }
    if (e.lastCallin !== null) {
      const delay = now - e.lastCallin;
      if (delay < m.timing.tminMs) {
        m.record(`tmin violated: callback '${symbol}' arrived ${formatMs(delay)} after callin '${e.lastCallinName}' ` +
                 `started (tmin ${m.timing.tminMs} ms) in ${e.where()}`, 'tminViolations',
                 { kind: 'tmin', symbol, delayMs: delay, query: e.query });
      }
    }
    ++m.report.callbacks;
    // `settled`: caused by the running callin (or the reset snippet) within its settle step, as
    // opposed to one that came later by itself; callbacksDrained waits only for the former.
    e.queue.push({ symbol, settled: e.stepping });
    e.wake();
  }
}

class NodeDevice {
  /// `config.variants`: 'compare' (every variant must answer alike, else NondeterminismError),
  /// 'split' (one input per variant, `name/label`) or 'first'. `config.timing` overrides the
  /// definition's. Throws an Error for an invalid definition.
  constructor(definition, config = {}) {
    definition.validate();
    this.def = definition;
    this.variantMode = config.variants ?? 'compare';
    this.timing = { ...definition.timing, ...(config.timing ?? {}) };
    if (this.timing.tminMs > this.timing.tmaxMs) throw new Error('tmin is larger than tmax');
    this.inputInfo = [];  // [{name, callin, variant|null, wait}]
    for (const c of definition.callins) {
      if (this.variantMode === 'split' && c.variants.length > 1) {
        c.variants.forEach((v, i) => this.inputInfo.push({ name: `${c.name}/${v.label}`, callin: c, variant: i }));
      } else {
        this.inputInfo.push({ name: c.name, callin: c, variant: null });
      }
    }
    this.mealy = definition.mealy;  // null, or {outputs, wait, errAbsorbing}
    if (!this.mealy || this.mealy.wait) this.inputInfo.push({ name: 'wait', wait: true });
    const names = this.inputInfo.map((i) => i.name);
    if (new Set(names).size !== names.length) throw new Error('split callin names collide with other callins');
    this.inputs = names;
    this.outputs = ['ok', 'quiet', 'err', ...definition.callbacks.map((c) => c.name),
      ...(definition.filter ? [OUTSIDE_PURPOSE] : [])];
    // Named callin outputs (Mealy devices): declared ones, then those learned when first answered.
    this.namedOutputs = this.mealy ? this.mealy.outputs.filter((o) => o !== 'err') : [];
    this.outputs.push(...this.namedOutputs);
    const sources = new Map();
    for (const cb of definition.callbacks)
      for (const s of cb.sources.length ? cb.sources : [cb.name]) sources.set(s, cb.name);
    this.monitor = new Monitor(definition.name, sources, this.timing);
    this.queryNumber = 0;
    this.epoch = null;
    this.instance = null;
    this.history = [];
    this.errored = false;
    this.variantRound = 0;
    this.inRun = false;  // inside run(): its rounds step every variant
  }

  get name() {
    return this.def.name;
  }
  get quietIsStable() {
    return this.def.quietIsStable;
  }
  get errAbsorbing() {
    return !this.mealy || this.mealy.errAbsorbing;
  }

  /// The output a Mealy callin snippet returned: undefined or 'ok' is ok; a new valid name is added
  /// (learned); anything else is a harness error naming it.
  answerOf(callin, value) {
    if (!this.mealy || value === undefined || value === null || value === 'ok') return 'ok';
    const bad = typeof value !== 'string' || value === '' || value.length > 256 || /[\u0000-\u001f\u007f]/.test(value) ||
      (RESERVED_OUTPUTS.has(value) && !(value === 'err' && !this.errAbsorbing)) || value.startsWith('unknown:');
    if (bad || this.def.callbacks.some((c) => c.name === value))
      throw new DeviceError(`${this.name}: callin '${callin}' returned ${JSON.stringify(value)}, which cannot be an ` +
                            'output (a non-empty name without control characters, not a callback, wait, quiet or unknown:...)');
    if (value !== 'err' && !this.namedOutputs.includes(value)) {
      this.namedOutputs.push(value);
      this.outputs.push(value);
    }
    return value;
  }
  /// The inputs of environment-role callins (each split variant of one too), in input order.
  get environment() {
    return this.inputInfo.filter((i) => !i.wait && i.callin.environment).map((i) => i.name);
  }

  /// Throws DeviceError for a violation recorded since the last check. Its `timing` (when every
  /// record has a detail: no harness error) is the first violation as the protocol's `value.timing`
  /// (PROTOCOL.md): kind late | queued | early, callback, delay_ms, tmax_ms, tmin_ms, earlier_query
  /// (`earlier`: found at a reset, or recorded in another query than the one running: that answer
  /// was given, so a client never re-runs it as this query's).
  checkTiming(earlier = false) {
    if (this.monitor.pending.length === 0) return;
    const pending = this.monitor.pending;
    const details = this.monitor.pendingDetails;
    this.monitor.pending = [];
    this.monitor.pendingDetails = [];
    let message = `${this.name}: ${pending[0]}`;
    if (pending.length > 1) message += ` (and ${pending.length - 1} more)`;
    const error = new DeviceError(message);
    if (details.every((d) => d !== null)) {
      const d = details[0];
      const before = earlier || details.some((x) => x.query !== this.queryNumber);
      error.timing = { kind: { tmax: 'late', queued: 'queued', tmin: 'early' }[d.kind], callback: d.symbol,
                       delay_ms: Math.max(0, d.delayMs), tmax_ms: this.timing.tmaxMs, tmin_ms: this.timing.tminMs,
                       earlier_query: before, runs: 1 };
    }
    throw error;
  }

  /// A fresh instance. Throws DeviceError for a pending violation or a failing reset snippet.
  async reset() {
    await this.finish();
    this.checkTiming(true);  // a violation of an earlier query, found now
    ++this.queryNumber;
    this.history = [];
    this.errored = false;
    const epoch = new Epoch(this.monitor, this.queryNumber);
    epoch.history = this.history;
    this.epoch = epoch;
    epoch.stepping = true;  // callbacks of the construction count as settled
    try {
      this.instance = await this.def.reset(new CallbackSink(epoch));
      epoch.stepping = false;
    } catch (e) {
      await this.finish();
      throw new DeviceError(`${this.name}: the reset snippet failed: ${e && e.message ? e.message : e}`);
    }
    if (this.instance === undefined || this.instance === null) {
      await this.finish();
      throw new DeviceError(`${this.name}: the reset snippet returned no instance`);
    }
    // Callbacks the construction itself caused (before any callin) are queued like any other.
  }

  /// Ends the current instance (teardown snippet with callbacks muted). Never throws.
  async finish() {
    const epoch = this.epoch;
    const instance = this.instance;
    this.epoch = null;
    this.instance = null;
    if (!epoch) return;
    epoch.open = false;
    epoch.queue = [];
    epoch.wake();
    if (instance !== null && instance !== undefined && this.def.teardown) {
      // Events the teardown causes (a socket's `close` after terminate()) come later, asynchronously,
      // and are not the class's answer to the query: the instance stays muted from here on. (So a
      // purpose with a teardown must deliver every callback of a query within it; one without a
      // teardown keeps late callbacks observable, reported as violations.)
      epoch.muted = true;
      try {
        await this.def.teardown(instance);
      } catch (e) {
        process.stderr.write(`typestar-node-device: ${this.name}: the teardown snippet threw; ignored: ${e}\n`);
      }
    }
  }

  /// Runs one input (a name of `inputs`); `timeoutMs` for `wait` (default tmax). Returns the output
  /// name. Throws DeviceError for a timing violation or a harness error.
  async step(input, timeoutMs) {
    const epoch = this.epoch;
    if (!epoch || this.instance === null) throw new DeviceError(`${this.name}: step without reset`);
    const info = this.inputInfo.find((i) => i.name === input);
    if (!info) throw new Error(`unknown input '${input}'`);
    // 'compare' runs every variant of a word's callins on whole runs (run()); a session's step runs
    // one instance, so a callin with several variants would answer with its first alone: refused.
    if (!this.inRun && this.variantMode === 'compare' && !info.wait && info.variant === null && info.callin.variants.length > 1) {
      throw new DeviceError(`${this.name}: callin '${info.callin.name}' has ${info.callin.variants.length} variants, which ` +
                            "--variants compare compares on whole runs only (/v1/run); stepped one at a time it would run " +
                            `'${info.callin.variants[0].label}' alone. Run words whole (a client that batches), or split the ` +
                            'symbol (--variants split) or keep one variant (--variants first)');
    }
    this.checkTiming();  // a violation since the last step: do not run anything more
    let output;
    if (this.errored) {
      output = 'err';
    } else if (this.def.filter && !this.def.filter(this.history, input, { undelivered: epoch.queue.filter((q) => q.settled).length })) {
      // Outside the learning purpose: a callin is unknown there, a wait (no unknown waits) err.
      output = info.wait ? 'err' : OUTSIDE_PURPOSE;
    } else {
      output = info.wait ? await this.runWait(epoch, timeoutMs ?? this.timing.tmaxMs) : await this.runCallin(epoch, info);
    }
    if ((output === 'err' && this.errAbsorbing) || output === OUTSIDE_PURPOSE) this.errored = true;
    this.history.push({ input, output });
    this.checkTiming();
    return output;
  }

  async runCallin(epoch, info) {
    const callin = info.callin;
    const v = info.variant ?? (this.variantMode === 'compare' ? this.variantRound % callin.variants.length : 0);
    if (epoch.queue.length > 0) {
      // A callback came between the previous step and this callin: the callin would run in a state
      // the synchronous closure does not describe (DroidStar §5.2, tmin).
      this.monitor.record(`tmin violated: callback '${epoch.queue[0].symbol}' arrived before callin '${callin.name}' ` +
                          `could run, in ${epoch.where()}`, 'tminViolations',
                          { kind: 'queued', symbol: epoch.queue[0].symbol, delayMs: 0, query: epoch.query });
    }
    epoch.quietDeclared = false;
    epoch.lastCallin = performance.now();
    epoch.lastCallinName = callin.name;
    epoch.word.push(callin.name);
    epoch.stepping = true;
    let returned;
    try {
      returned = await callin.variants[v].snippet(this.instance);
    } catch (e) {
      epoch.stepping = false;
      // A crash of the runtime under the class (Node's own internal assertion) is not a refusal.
      if (isCrash(e)) throw new DeviceError(`${this.name}: callin '${callin.name}' crashed in ${epoch.where()}: ${crashText(e)}`);
      return 'err';
    }
    try {
      if (this.def.settle) await this.def.settle(this.instance);
    } catch (e) {
      epoch.stepping = false;
      throw new DeviceError(`${this.name}: settling after callin '${callin.name}' failed in ${epoch.where()}: ${e.message ?? e}`);
    }
    epoch.stepping = false;
    return this.answerOf(callin.name, returned);
  }

  runWait(epoch, timeoutMs) {
    epoch.word.push('wait');
    if (epoch.queue.length > 0) return Promise.resolve(epoch.queue.shift().symbol);
    const start = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        epoch.waiter = null;
        epoch.quietDeclared = true;
        epoch.quietWaitStart = start;
        resolve('quiet');
      }, timeoutMs);
      epoch.waiter = () => {
        clearTimeout(timer);
        // A callback, or a harness error (stop waiting; checkTiming throws it).
        resolve(epoch.queue.length > 0 ? epoch.queue.shift().symbol : 'quiet');
      };
    });
  }

  /// One query, with exactly the contract of typestar::Device::run: a fresh instance, stop at the
  /// first `err` (the rest answer `err` without running), and, when quiet is stable, a `wait` right
  /// after a `wait` answered `quiet` is answered without running. In 'compare' mode the word runs
  /// once per variant index; different answers throw NondeterminismError.
  /// `timeoutMs`: how long each `wait` waits (undefined: tmax), as `step` takes it.
  async run(inputs, timeoutMs) {
    let rounds = 1;
    if (this.variantMode === 'compare') {
      for (const name of inputs) {
        const info = this.inputInfo.find((i) => i.name === name);
        if (info && !info.wait) rounds = Math.max(rounds, info.callin.variants.length);
      }
    }
    this.variantRound = 0;
    this.inRun = true;
    try {
      return await this.compareRounds(inputs, timeoutMs, rounds);
    } finally {
      this.inRun = false;
      this.variantRound = 0;
    }
  }

  /// The rounds of run(): the word once per variant index, a difference a NondeterminismError.
  async compareRounds(inputs, timeoutMs, rounds) {
    const first = await this.runOnce(inputs, timeoutMs);
    for (let v = 1; v < rounds; ++v) {
      this.variantRound = v;
      const other = await this.runOnce(inputs, timeoutMs);
      first.steps += other.steps;
      first.waits += other.waits;
      const at = first.outputs.findIndex((o, i) => o !== other.outputs[i]);
      if (at < 0) continue;
      this.variantRound = 0;
      let callin = null;
      for (let i = 0; i <= at && !callin; ++i) {
        const info = this.inputInfo.find((x) => x.name === inputs[i]);
        if (!info.wait && info.callin.variants.length > 1) callin = info.callin;
      }
      const a = first.outputs.slice(0, at + 1).join(' ');
      const b = other.outputs.slice(0, at + 1).join(' ');
      const label = (k) => callin.variants[k % callin.variants.length].label;
      throw new NondeterminismError(`variants of callin '${callin.name}' behave differently on ` +
        `'${inputs.slice(0, at + 1).join(' ')}': with '${label(0)}' it answers '${a}', with '${label(v)}' '${b}'; ` +
        'split the symbol (--variants split) or drop a variant', {
        inputs: inputs.slice(0, at + 1),
        answers: [{ outputs: first.outputs.slice(0, at + 1), count: 1 }, { outputs: other.outputs.slice(0, at + 1), count: 1 }],
      });
    }
    this.variantRound = 0;
    return first;
  }

  /// After a run that ended in a `wait` answered quiet, listens `ms` longer while the instance lives
  /// (as the C++ InProcessDevice's quiet grace): a callback then breaks tmax in THIS run, so the
  /// client re-runs the word (the protocol's `timing violation`, earlier_query false) instead of the
  /// answer being given and the violation found only at the next reset, as an earlier query's.
  /// Ends at the first violation; throws it (DeviceError with timing data).
  async quietGrace(ms) {
    const epoch = this.epoch;
    if (!epoch || ms <= 0) return;
    if (this.monitor.pending.length === 0) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => { epoch.waiter = null; resolve(); }, ms);
        epoch.waiter = () => { clearTimeout(timer); resolve(); };
      });
    }
    this.checkTiming();
  }

  async runOnce(inputs, timeoutMs) {
    const result = { outputs: [], steps: 0, waits: 0 };
    await this.reset();
    try {
      let quiescent = false;
      for (let i = 0; i < inputs.length; ++i) {
        const isWait = inputs[i] === 'wait';
        if (isWait && quiescent && this.quietIsStable) {
          result.outputs.push('quiet');
          continue;
        }
        const output = await this.step(inputs[i], timeoutMs);
        ++result.steps;
        if (isWait) ++result.waits;
        result.outputs.push(output);
        quiescent = isWait && output === 'quiet';
        if ((output === 'err' && this.errAbsorbing) || output === OUTSIDE_PURPOSE) {
          while (result.outputs.length < inputs.length) result.outputs.push('err');
          break;
        }
      }
      if (quiescent) await this.quietGrace(Math.min(timeoutMs ?? this.timing.tmaxMs, this.timing.tmaxMs));
    } finally {
      await this.finish();
    }
    return result;
  }
}

/// Whether `e`, thrown by a callin, is a crash rather than the class refusing the call: Node's own
/// internal assertion (ERR_INTERNAL_ASSERTION, "this is a bug in Node.js") leaves the runtime in an
/// undefined state, so it is a device error, never the answer `err`.
function isCrash(e) {
  return !!e && e.code === 'ERR_INTERNAL_ASSERTION';
}

function crashText(e) {
  const text = e && e.message ? e.message : String(e);
  return `${e && e.code ? `${e.code}: ` : ''}${text.split('\n')[0]}`;
}

/// Watches this process for an exception thrown outside any callin (an event listener, a timer, a
/// rejected promise: the class crashed) and hands `record` its message: a device error, never an
/// answer. The agent (agent.js) and the node:test runner (spec_tests.js) share it. Returns a
/// function that stops watching.
function watchCrashes(record) {
  const onException = (e) => record(`uncaught exception in the class under learning: ${crashText(e)}`, e);
  const onRejection = (e) => record(`unhandled promise rejection in the class under learning: ${crashText(e)}`, e);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

module.exports = { NodeDevice, CallbackSink, DeviceError, NondeterminismError, Monitor, OUTSIDE_PURPOSE, isCrash, watchCrashes };
