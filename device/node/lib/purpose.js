// The JavaScript description of a class under learning: DroidStar's LearningPurpose (§2.1, §5.1),
// mirroring include/typestar/device/purpose.hpp. A definition says how to get a fresh instance with
// its listeners registered (the reset snippet, given a CallbackSink), which callins exist (snippets,
// possibly with variants; a throw — or a rejected promise — means the callin was refused: `err`),
// which callbacks the listeners report (several raw event names may merge into one symbol, §5.3),
// the timing assumptions tmin/tmax (§5.2), whether a `wait` answered `quiet` leaves the state
// unchanged, an optional settle step run after every callin, and an optional learning-purpose filter.
'use strict';

const RESERVED = new Set(['ok', 'err', 'quiet', 'wait']);

/// The filter "at most `limit` pending requests" (DroidStar §5.3), as typestar::at_most_pending: an
/// input in `requests` answered `ok` opens a request, an output in `responses` closes one; a request
/// while `limit` are open is denied.
function atMostPending(requests, responses, limit = 1) {
  return (history, next) => {
    if (!requests.includes(next)) return true;
    let pending = 0;
    for (const step of history) {
      if (requests.includes(step.input) && step.output === 'ok') ++pending;
      if (responses.includes(step.output) && pending > 0) --pending;
    }
    return pending < limit;
  };
}

/// Both filters must allow the input (a missing filter allows everything).
function both(first, second) {
  return (history, next, context) =>
    (!first || first(history, next, context)) && (!second || second(history, next, context));
}

/// The learning purpose "no callin while a callback is undelivered" (as typestar::targets::
/// callbacks_drained): a callin is denied (`err`) while a callback that the previous callin (or the
/// reset snippet) caused within its settle step is still queued; `wait` is always allowed. The
/// device passes {undelivered} as the filter's third argument. A callback that came later by itself
/// (after the settle step) does not make a callin `err`: the callin runs and the device reports
/// the race as a tmin violation (DeviceError), never as an answer.
function callbacksDrained() {
  return (history, next, context) => next === 'wait' || context.undelivered === 0;
}

/// Settle helpers for callins (see LearningPurpose#settle).
const settle = {
  /// Resolves after `turns` turns of the event loop (setImmediate): every process.nextTick and
  /// promise job queued before, and every one they queue in turn, has run by then.
  turns(turns = 2) {
    return new Promise((resolve) => {
      const step = (left) => (left === 0 ? resolve() : setImmediate(() => step(left - 1)));
      step(turns);
    });
  },
  /// Resolves once `activity()` (the time of the last event, from performance.now()) lies at least
  /// `idleMs` in the past, and at least `idleMs` after the call. Rejects after `limitMs`.
  idle(activity, idleMs, limitMs = 2000) {
    const { performance } = require('perf_hooks');
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const poll = () => {
        const now = performance.now();
        if (now - start >= idleMs && now - activity() >= idleMs) return resolve();
        if (now - start > limitMs) return reject(new Error(`did not settle within ${limitMs} ms`));
        setTimeout(poll, 1);
      };
      setTimeout(poll, idleMs);
    });
  },
};

/// The validated description a NodeDevice runs. Build it with LearningPurpose.
class ClassDefinition {
  constructor() {
    this.name = '';
    this.framework = '';
    this.reset = null;       // (sink) => instance | Promise<instance>
    this.teardown = null;    // (instance) => void | Promise<void>; must not throw
    this.settle = null;      // (instance) => void | Promise<void>, after every callin that answered ok
    this.callins = [];       // [{name, variants: [{label, snippet}], environment}]
    this.callbacks = [];     // [{name, sources: []}]
    this.timing = { tmaxMs: 200, tminMs: 0 };
    this.quietIsStable = false;  // default: a quiet wait may change the state (nothing skipped)
    this.filter = null;      // (history, next, {undelivered}) => boolean
    // Mealy devices (device/PROTOCOL.md, "Mealy devices"): null for a callback typestate; else the
    // named callin outputs declared so far (a snippet returning another name adds it), whether the
    // device has the `wait` input, and whether `err` is absorbing.
    this.mealy = null;       // {outputs: [], wait: true, errAbsorbing: true}
  }

  /// Throws an Error naming the problem: no name or reset snippet, an empty, reserved or duplicate
  /// symbol, a callin without snippet, duplicate variant labels, a callback source used twice,
  /// negative timing or tmin > tmax.
  validate() {
    const bad = (what) => {
      throw new Error(`class '${this.name}': ${what}`);
    };
    if (!this.name) throw new Error('class definition without a name');
    if (typeof this.reset !== 'function') bad('no reset snippet');
    const symbols = new Set();
    const check = (s, kind) => {
      if (typeof s !== 'string' || s === '') bad(`empty ${kind} name`);
      if (RESERVED.has(s)) bad(`reserved name '${s}' used as a ${kind}`);
      if (symbols.has(s)) bad(`symbol '${s}' declared twice`);
      symbols.add(s);
    };
    for (const c of this.callins) {
      check(c.name, 'callin');
      if (c.variants.length === 0) bad(`callin '${c.name}' has no snippet`);
      const labels = new Set();
      for (const v of c.variants) {
        if (typeof v.snippet !== 'function') bad(`callin '${c.name}' has an empty snippet`);
        if (c.variants.length > 1 && !v.label) bad(`a variant of callin '${c.name}' has no label`);
        if (labels.has(v.label)) bad(`callin '${c.name}' has two variants labelled '${v.label}'`);
        labels.add(v.label);
      }
    }
    const sources = new Set();
    for (const cb of this.callbacks) {
      check(cb.name, 'callback');
      for (const s of cb.sources.length ? cb.sources : [cb.name]) {
        if (sources.has(s)) bad(`callback source '${s}' is used twice`);
        sources.add(s);
      }
    }
    if (this.mealy) {
      const named = new Set();
      for (const o of this.mealy.outputs) {
        if (typeof o !== 'string' || o === '') bad('empty output name');
        if (RESERVED.has(o) && !(o === 'err' && !this.mealy.errAbsorbing)) bad(`reserved name '${o}' used as an output`);
        if (named.has(o)) bad(`output '${o}' declared twice`);
        named.add(o);
      }
      if (!this.mealy.wait && this.callbacks.length > 0) bad('noWait() with callbacks: callbacks arrive on wait');
    }
    const { tmaxMs, tminMs } = this.timing;
    if (!Number.isInteger(tmaxMs) || !Number.isInteger(tminMs) || tmaxMs < 0 || tminMs < 0) bad('negative timing');
    if (tminMs > tmaxMs) bad('tmin is larger than tmax');
  }
}

/// Builder of a ClassDefinition, as typestar::LearningPurpose<T>:
///
///     new LearningPurpose('Readable').framework('readable-stream-3.6.2')
///       .reset((sink) => { const r = new Readable({read() {}}); r.on('data', () => sink.emit('data')); return r; })
///       .callin('pause', (r) => r.pause())
///       .callback('data')
///       .timing({tmaxMs: 20, tminMs: 0})
///       .quietIsStable()
///       .build();
class LearningPurpose {
  constructor(name) {
    this.def = new ClassDefinition();
    this.def.name = name;
  }
  /// The framework version reported by the device (default empty).
  framework(version) {
    this.def.framework = version;
    return this;
  }
  /// The reset snippet: a fresh instance with listeners registered on the sink (may be async).
  reset(snippet) {
    this.def.reset = snippet;
    return this;
  }
  /// A tear-down snippet run after each query (must not throw; may be async). It should remove the
  /// listeners first: events it causes would otherwise be reported as late callbacks.
  teardown(snippet) {
    this.def.teardown = snippet;
    return this;
  }
  /// Run after every callin that did not throw, before its answer: it must return (or resolve) only
  /// once every callback the callin causes without the passage of time has been emitted (e.g.
  /// settle.turns() for process.nextTick events). Those callbacks are queued and `wait` returns them.
  settle(snippet) {
    this.def.settle = snippet;
    return this;
  }
  /// A callin with one snippet. Throws if `symbol` already exists.
  callin(symbol, snippet) {
    if (this.find(symbol)) throw new Error(`callin '${symbol}' declared twice`);
    this.def.callins.push({ name: symbol, variants: [{ label: '', snippet }] });
    return this;
  }
  /// One more variant snippet of callin `symbol` (created on first use), labelled `label`.
  variant(symbol, label, snippet) {
    let c = this.find(symbol);
    if (!c) {
      c = { name: symbol, variants: [] };
      this.def.callins.push(c);
    }
    c.variants.push({ label, snippet });
    return this;
  }
  /// Marks callin `symbol` as performed by the peer (spec `role: environment`): still an input the
  /// learner drives; the agent lists it as `environment` in /v1/status, and learned specs record the
  /// role. Throws if there is no such callin.
  environment(symbol) {
    const c = this.find(symbol);
    if (!c) throw new Error(`environment: no callin '${symbol}'`);
    c.environment = true;
    return this;
  }
  /// A callback symbol emitted under its own name.
  callback(symbol) {
    this.def.callbacks.push({ name: symbol, sources: [] });
    return this;
  }
  /// A callback symbol standing for several raw event names (DroidStar §5.3, merged outputs).
  mergedCallback(symbol, sources) {
    this.def.callbacks.push({ name: symbol, sources: [...sources] });
    return this;
  }
  /// The timing assumptions, {tmaxMs, tminMs}.
  timing(t) {
    this.def.timing = { tmaxMs: t.tmaxMs, tminMs: t.tminMs ?? 0 };
    return this;
  }
  /// Declares that a `wait` answered `quiet` leaves the state unchanged, so a second `wait` may be
  /// skipped (announced as `quiet_is_stable: true` in /v1/status). Without it the agent declares
  /// false: time passing may change the state.
  /// A Mealy device: callins answer named outputs. A callin snippet returning a string answers that
  /// output (`'ok'` or undefined: ok; a thrown exception: err); names not declared here are learned
  /// when first returned. Declaring none is fine: `.outputs()` alone makes the purpose a Mealy one.
  outputs(...names) {
    this.mealyPart().outputs.push(...names.flat());
    return this;
  }
  /// No `wait` input (a device without callbacks, e.g. a protocol implementation answering each
  /// input at once): inputs are the callins alone.
  noWait() {
    this.mealyPart().wait = false;
    return this;
  }
  /// `err` is an output like any other (not absorbing): the query goes on after a callin throws.
  errNotAbsorbing() {
    this.mealyPart().errAbsorbing = false;
    return this;
  }
  mealyPart() {
    if (!this.def.mealy) this.def.mealy = { outputs: [], wait: true, errAbsorbing: true };
    return this.def.mealy;
  }
  quietIsStable() {
    this.def.quietIsStable = true;
    return this;
  }
  /// Restricts the explored words: filter(history, next, {undelivered}) is true when `next` may run
  /// (`undelivered`: settled callbacks not yet returned by `wait`, see callbacksDrained).
  restrictTo(filter) {
    this.def.filter = filter;
    return this;
  }
  /// The validated definition; throws an Error (ClassDefinition#validate).
  build() {
    this.def.validate();
    return this.def;
  }
  find(symbol) {
    return this.def.callins.find((c) => c.name === symbol);
  }
}

/// The definition a purpose module exports: a ClassDefinition (a typestate device's) or a
/// DataDefinition (a data device's, lib/data.js), given built, as its builder (LearningPurpose or
/// DataPurpose, built here), as a function make(options) returning either, or as {make(options)}.
/// `where` names the module in errors. Throws an Error naming what was found instead.
function definitionOf(exported, options = {}, where = 'the purpose module') {
  const { DataPurpose, DataDefinition } = require('./data');  // here: data.js loads after this file
  const builder = (v) => v instanceof LearningPurpose || v instanceof DataPurpose;
  let value = exported;
  if (value && typeof value === 'object' && typeof value.make === 'function' && !builder(value)) value = value.make(options);
  else if (typeof value === 'function' && !builder(value.prototype)) value = value(options);
  if (builder(value)) value = value.build();
  if (value instanceof ClassDefinition || value instanceof DataDefinition) {
    value.validate();
    return value;
  }
  // Another copy of this package (a team's own node_modules): duck-typed, then validated.
  if (value && typeof value === 'object' && typeof value.validate === 'function' && typeof value.reset === 'function'
      && Array.isArray(value.callins)) {
    value.validate();
    return value;
  }
  if (value && typeof value === 'object' && typeof value.build === 'function') return definitionOf(value.build(), options, where);
  throw new Error(`${where} exports ${value === null ? 'null' : typeof value}, not a learning purpose ` +
                  '(export new LearningPurpose(...)...build() or new DataPurpose(...)...build(), the builder, or ' +
                  'make(options) returning one)');
}

/// Where in `file` loading it failed, as `:LINE:COLUMN` (1-based), or '' when Node does not say:
/// a SyntaxError's stack opens with `FILE:LINE`, the source line and a caret under the column; an
/// exception thrown while the module ran names `FILE:LINE:COLUMN` in a frame.
function loadErrorLocation(e, file) {
  const stack = e && typeof e.stack === 'string' ? e.stack : '';
  const lines = stack.split('\n');
  if (lines[0] === `${file}:${lines[0].slice(file.length + 1)}` && /^\d+$/.test(lines[0].slice(file.length + 1))) {
    const caret = lines.length > 2 && /^ *\^/.test(lines[2]) ? lines[2].indexOf('^') + 1 : 0;
    return `:${lines[0].slice(file.length + 1)}${caret > 0 ? `:${caret}` : ''}`;
  }
  for (const l of lines) {
    const at = l.lastIndexOf(`${file}:`);
    if (at < 0) continue;
    const m = /^:(\d+):(\d+)/.exec(l.slice(at + file.length));
    if (m) return `:${m[1]}:${m[2]}`;
  }
  return '';
}

/// definitionOf the CommonJS module at `file` (an absolute path). Throws an Error naming the file,
/// and for a module that does not load, the line and column Node reports (`FILE:LINE:COLUMN`).
function loadPurposeModule(file, options = {}) {
  let exported;
  try {
    exported = require(file);
  } catch (e) {
    const message = String(e && e.message ? e.message : e).split('\n')[0];
    const where = e && e.code === 'MODULE_NOT_FOUND' ? '' : loadErrorLocation(e, file);
    throw new Error(`cannot load the purpose module '${file}'${where ? ` (${file}${where})` : ''}: ` +
                    `${e && e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${message}`);
  }
  return definitionOf(exported, options, `the purpose module '${file}'`);
}

module.exports = { LearningPurpose, ClassDefinition, definitionOf, loadPurposeModule, atMostPending, both, callbacksDrained, settle, RESERVED };
