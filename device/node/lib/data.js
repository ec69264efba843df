// Data devices (device/PROTOCOL.md, "Data devices"): a class whose callins take integer values and
// whose outputs carry integer values, learned and checked as a register automaton
// (docs/register-automata.md). DataPurpose is the JavaScript counterpart of the JVM's
// typestar.agent.DataPurpose and C++'s typestar::DataPurpose: a reset snippet making a fresh instance,
// callins with integer parameters answering one declared output (with its values), and optionally the
// output that answers a callin refused with an exception. DataDevice runs one; the Agent serves it
// (a status with the typed signature in `data`, callins and /v1/run with values) and the node:test
// runner checks a register-automaton spec against it. Data devices are synchronous: no callbacks, no
// `wait`, every callin answers exactly one output (never `err` absorption: a refusal is whatever
// output the purpose declares for it).
'use strict';

const { DeviceError, Monitor, NodeDevice, isCrash } = require('./device');

/// The integers a value may be: a JavaScript number holds these exactly (the protocol's values are
/// 64-bit; the Node agent refuses one beyond ±(2^53 - 1) as invalid, never rounds it).
const isValue = (v) => Number.isSafeInteger(v);

function messageOf(e) {
  if (e instanceof Error) return `${e.name}${e.code ? ` [${e.code}]` : ''}: ${e.message}`;
  return String(e);
}

/// The validated description a DataDevice runs. Build it with DataPurpose.
class DataDefinition {
  constructor(name) {
    this.kind = 'data';      // what tells it from a ClassDefinition (also for another copy of this package)
    this.name = name;
    this.framework = '';
    this.reset = null;       // () => instance | Promise<instance>
    this.teardown = null;    // (instance) => void | Promise<void>; must not throw
    this.callins = [];       // [{name, parameters: [names], body: (instance, values) => answer}]
    this.outputs = [];       // [{name, parameters: [names]}]
    this.constants = [];     // [{name, value}]: the values the class compares data with (an int each)
    this.refused = '';       // the output answering a refused callin ('' : none)
    this.refusedBy = [];     // Error classes (instanceof) or names (an error's code or name)
  }

  /// Throws an Error naming the problem: no name, reset snippet, callin or output; an empty or
  /// duplicate symbol or parameter name; a callin without body; a refusal naming an undeclared output,
  /// one with parameters, or no error.
  validate() {
    const bad = (what) => {
      throw new Error(`data purpose '${this.name}': ${what}`);
    };
    if (typeof this.name !== 'string' || this.name === '') throw new Error('data purpose without a name');
    if (typeof this.reset !== 'function') bad('no reset snippet');
    if (this.callins.length === 0) bad('no callin');
    if (this.outputs.length === 0) bad('no output');
    for (const [list, kind] of [[this.callins, 'callin'], [this.outputs, 'output'], [this.constants, 'constant']]) {
      const names = new Set();
      for (const s of list) {
        if (typeof s.name !== 'string' || s.name === '') bad(`an ${kind} with an empty name`);
        if (names.has(s.name)) bad(`${kind} '${s.name}' declared twice`);
        names.add(s.name);
        const seen = new Set();
        for (const p of s.parameters ?? []) {
          if (typeof p !== 'string' || p === '' || seen.has(p)) bad(`'${s.name}' has an empty or repeated parameter name`);
          seen.add(p);
        }
      }
    }
    for (const c of this.callins) if (typeof c.body !== 'function') bad(`callin '${c.name}' has no body`);
    for (const c of this.constants) if (!isValue(c.value)) bad(`constant '${c.name}' is not an integer within ±(2^53 - 1)`);
    if (this.refused !== '') {
      const r = this.output(this.refused);
      if (!r) bad(`refusedAs names undeclared output '${this.refused}'`);
      if (r.parameters.length > 0) bad(`refusedAs output '${this.refused}' has parameters`);
      if (this.refusedBy.length === 0) bad(`refusedAs '${this.refused}' names no error`);
    }
  }

  callin(name) {
    return this.callins.find((c) => c.name === name);
  }

  output(name) {
    return this.outputs.find((o) => o.name === name);
  }

  /// The status field `data` (device/PROTOCOL.md): the typed signature, every parameter and constant
  /// `int`, every output a callin's return.
  signature() {
    const params = (s) => s.parameters.map((p) => [p, 'int']);
    return {
      inputs: this.callins.map((c) => ({ name: c.name, parameters: params(c) })),
      outputs: this.outputs.map((o) => ({ name: o.name, parameters: params(o), callback: false })),
      constants: this.constants.map((c) => ({ name: c.name, type: 'int', value: c.value })),
    };
  }
}

/// Builder of a DataDefinition:
///
///     new DataPurpose('BoundedStack').framework('example-1')
///       .reset(() => new BoundedStack())
///       .callin('push', ['p'], (s, [p]) => (s.push(p) ? 'ok' : 'full'))
///       .callin('pop', [], (s) => answer('out', s.pop()))
///       .output('ok').output('full').output('empty').output('out', 'v')
///       .refusedAs('empty', RangeError)
///       .build();
///
/// A callin's body gets the instance and its values (numbers) and returns (or resolves to) the output:
/// a name (an output without values) or {output, values} (answer(output, ...values)).
class DataPurpose {
  constructor(name) {
    this.def = new DataDefinition(name);
  }
  /// The framework version reported in /v1/status (provenance).
  framework(version) {
    this.def.framework = String(version);
    return this;
  }
  /// Makes a fresh instance (may be async); a throw is `session not created`.
  reset(snippet) {
    this.def.reset = snippet;
    return this;
  }
  /// Ends an instance (may be async); a throw is logged and ignored.
  teardown(snippet) {
    this.def.teardown = snippet;
    return this;
  }
  /// A callin with integer parameters named `parameters`.
  callin(name, parameters, body) {
    this.def.callins.push({ name, parameters: [...(parameters ?? [])], body });
    return this;
  }
  /// An output (a callin's answer) with integer parameters.
  output(name, ...parameters) {
    this.def.outputs.push({ name, parameters });
    return this;
  }
  /// A constant the class compares data with (EventEmitter's 0, below which setMaxListeners throws):
  /// guards and outputs of the learned automaton may name it. Without it such a comparison is outside
  /// what a register automaton over the signature can say (the learned spec's assumptions name this).
  constant(name, value) {
    this.def.constants.push({ name, value });
    return this;
  }
  /// The output (declared, without parameters) answering a callin that throws (or rejects with) one
  /// of `errors`: an Error class (instanceof) or a name (the error's `code` or `name`). Any other
  /// throw is a device error naming the callin, never a guessed answer.
  refusedAs(output, ...errors) {
    this.def.refused = output;
    this.def.refusedBy = errors;
    return this;
  }
  /// The validated definition; throws an Error (DataDefinition#validate).
  build() {
    this.def.validate();
    return this.def;
  }
}

/// An output with values, as a callin's body returns it.
function answer(output, ...values) {
  return { output, values };
}

/// Runs a DataDefinition: one instance at a time (a session's, or one /v1/run's). A harness error
/// recorded on its monitor (the class crashed outside a callin) is thrown before it answers again.
class DataDevice {
  constructor(definition) {
    definition.validate();
    this.def = definition;
    this.data = true;
    this.timing = { tmaxMs: 0, tminMs: 0 };  // a data device never waits
    this.monitor = new Monitor(definition.name, new Map(), this.timing);
    this.instance = null;
  }

  get name() {
    return this.def.name;
  }
  get inputs() {
    return this.def.callins.map((c) => c.name);
  }

  /// The number of values `callin` takes, or -1 when it is not declared.
  arity(callin) {
    const c = this.def.callin(callin);
    return c ? c.parameters.length : -1;
  }

  /// Throws DeviceError for a harness error recorded since the last check.
  checkHarness() {
    if (this.monitor.pending.length === 0) return;
    const pending = this.monitor.pending;
    this.monitor.pending = [];
    this.monitor.pendingDetails = [];
    throw new DeviceError(`${this.name}: ${pending[0]}${pending.length > 1 ? ` (and ${pending.length - 1} more)` : ''}`);
  }

  /// A fresh instance. Throws DeviceError for a recorded harness error or a failing reset snippet.
  async reset() {
    await this.finish();
    this.checkHarness();
    let instance;
    try {
      instance = await this.def.reset();
    } catch (e) {
      throw new DeviceError(`${this.name}: the reset snippet failed: ${messageOf(e)}`);
    }
    if (instance === undefined || instance === null) throw new DeviceError(`${this.name}: the reset snippet returned no instance`);
    this.instance = instance;
  }

  /// Ends the current instance (its teardown). Never throws.
  async finish() {
    const instance = this.instance;
    this.instance = null;
    if (instance === null || !this.def.teardown) return;
    try {
      await this.def.teardown(instance);
    } catch (e) {
      process.stderr.write(`typestar-node-device: ${this.name}: the teardown snippet threw; ignored: ${messageOf(e)}\n`);
    }
  }

  /// Runs `callin` (declared) with `values` (as many as it takes, each a safe integer: the caller
  /// checked). Returns {output, values}. Throws DeviceError for an undeclared output, an output with
  /// the wrong number of values or a value that is not an integer, a throw that is not a declared
  /// refusal, or a harness error: never a guessed answer.
  async step(callin, values) {
    const c = this.def.callin(callin);
    if (!c) throw new Error(`unknown callin '${callin}'`);
    if (this.instance === null) throw new DeviceError(`${this.name}: step without reset`);
    this.checkHarness();
    let returned;
    try {
      returned = await c.body(this.instance, [...values]);
    } catch (e) {
      if (isCrash(e)) throw new DeviceError(`${this.name}: callin '${callin}' crashed: ${messageOf(e)}`);
      const refused = this.def.refusedBy.some((k) =>
        (typeof k === 'function' ? e instanceof k : !!e && (e.code === k || e.name === k)));
      if (refused) return { output: this.def.refused, values: [] };
      throw new DeviceError(`${this.name}: callin '${callin}' threw ${messageOf(e)}` +
                            (this.def.refused === '' ? ' (the purpose declares no refusedAs)' : ' (not a declared refusal)'));
    }
    this.checkHarness();
    const a = typeof returned === 'string' ? { output: returned, values: [] } : returned;
    if (!a || typeof a !== 'object' || typeof a.output !== 'string')
      throw new DeviceError(`${this.name}: callin '${callin}' answered no output (return a name or answer(output, ...values))`);
    const out = this.def.output(a.output);
    if (!out) throw new DeviceError(`${this.name}: callin '${callin}' answered undeclared output '${a.output}'`);
    const v = a.values ?? [];
    if (!Array.isArray(v) || v.length !== out.parameters.length)
      throw new DeviceError(`${this.name}: callin '${callin}' answered '${a.output}' with ${Array.isArray(v) ? v.length : 'no'} ` +
                            `values, declared ${out.parameters.length}`);
    if (!v.every(isValue))
      throw new DeviceError(`${this.name}: callin '${callin}' answered '${a.output}' with a value that is not an integer ` +
                            'within ±(2^53 - 1)');
    return { output: a.output, values: [...v] };
  }

  /// Runs `inputs` ([{callin, values}]) from a fresh instance, every input. Returns {outputs, steps}.
  async run(inputs) {
    await this.reset();
    try {
      const outputs = [];
      for (const i of inputs) outputs.push(await this.step(i.callin, i.values));
      return { outputs, steps: inputs.length, waits: 0 };
    } finally {
      await this.finish();
    }
  }
}

/// The device of a definition: a DataDevice for a data purpose's, else a NodeDevice (config: its
/// variants and timing).
function deviceFor(definition, config = {}) {
  return definition && definition.kind === 'data' ? new DataDevice(definition) : new NodeDevice(definition, config);
}

module.exports = { DataPurpose, DataDefinition, DataDevice, answer, deviceFor, isValue };
