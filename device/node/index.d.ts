// TypeScript declarations of typestar-node-device (index.js / index.mjs): the learning-purpose API,
// NodeDevice, the /v1 Agent and specTests. Hand-written; tests/node/js/package.test.js checks that
// every name declared here is exported by both faces and that nothing exported is left undeclared.

/** Where a callback is delivered: the reset snippet registers the instance's listeners on it. */
export declare class CallbackSink {
  /** Reports raw event `name` (a declared callback or one of its merged sources). */
  emit(name: string): void;
}

/** One step of a query as a filter sees it. */
export interface HistoryStep { input: string; output: string; }
/** A learning-purpose filter: true when `next` may run after `history`. */
export type PurposeFilter = (history: HistoryStep[], next: string, context: { undelivered: number }) => boolean;

export interface Timing { tmaxMs: number; tminMs: number; }

/** The validated description a NodeDevice runs (LearningPurpose#build()). */
export declare class ClassDefinition {
  name: string;
  framework: string;
  timing: Timing;
  quietIsStable: boolean;
  /** Throws an Error naming the problem. */
  validate(): void;
}

/** DroidStar's learning purpose (mirrors typestar::LearningPurpose<T>): how to get a fresh instance,
 *  its callins and callbacks, timing and filter. Every method but build() returns the builder. */
export declare class LearningPurpose<T = any> {
  constructor(name: string);
  framework(version: string): this;
  reset(snippet: (sink: CallbackSink) => T | Promise<T>): this;
  teardown(snippet: (instance: T) => void | Promise<void>): this;
  settle(snippet: (instance: T) => void | Promise<void>): this;
  /** A callin; a throw or a rejected promise answers `err`. */
  callin(symbol: string, snippet: (instance: T) => unknown): this;
  variant(symbol: string, label: string, snippet: (instance: T) => unknown): this;
  environment(symbol: string): this;
  callback(symbol: string): this;
  mergedCallback(symbol: string, sources: string[]): this;
  timing(timing: Partial<Timing>): this;
  outputs(...names: string[]): this;
  noWait(): this;
  errNotAbsorbing(): this;
  quietIsStable(): this;
  restrictTo(filter: PurposeFilter): this;
  /** The validated definition; throws an Error naming the problem. */
  build(): ClassDefinition;
}

/** An output with its values, as a data callin answers it (a bare name: an output without values). */
export interface DataAnswer { output: string; values: number[]; }
/** A data callin: the instance and one integer per declared parameter; returns (or resolves to) its output. */
export type DataBody<T> = (instance: T, values: number[]) => string | DataAnswer | Promise<string | DataAnswer>;

/** The validated description a DataDevice runs (a data device: learned as a register automaton). */
export declare class DataDefinition {
  readonly kind: 'data';
  name: string;
  framework: string;
  validate(): void;
  /** The status field `data` (device/PROTOCOL.md, "Data devices"). */
  signature(): object;
}

/** Builder of a DataDefinition: a class whose callins take integers and whose outputs carry them. */
export declare class DataPurpose<T = any> {
  constructor(name: string);
  framework(version: string): this;
  /** Makes a fresh instance (may be async). */
  reset(snippet: () => T | Promise<T>): this;
  teardown(snippet: (instance: T) => void | Promise<void>): this;
  /** A callin with integer parameters named `parameters`. */
  callin(name: string, parameters: string[], body: DataBody<T>): this;
  /** An output (a callin's answer) with integer parameters. */
  output(name: string, ...parameters: string[]): this;
  /** A constant the class compares data with (guards and outputs may name it). */
  constant(name: string, value: number): this;
  /** The output answering a callin that throws one of `errors`: an Error class, or an error's code or name. */
  refusedAs(output: string, ...errors: (Function | string)[]): this;
  build(): DataDefinition;
}
/** An output with values, as a data callin's body returns it. */
export declare function answer(output: string, ...values: number[]): DataAnswer;
export interface DataRunResult { outputs: DataAnswer[]; steps: number; waits: 0; }

/** Runs a DataDefinition in this process; the Agent serves it with the data fields of /v1. */
export declare class DataDevice {
  constructor(definition: DataDefinition);
  readonly name: string;
  readonly inputs: string[];
  reset(): Promise<void>;
  step(callin: string, values: number[]): Promise<DataAnswer>;
  finish(): Promise<void>;
  /** One query: reset, every input, finish. */
  run(inputs: { callin: string; values: number[] }[]): Promise<DataRunResult>;
}

/** What a purpose module may export: a definition, a builder, or make(options) returning either. */
export type PurposeOptions = { tmaxMs?: number; tminMs?: number; delayMs?: number };
export type PurposeExport = ClassDefinition | LearningPurpose | DataDefinition | DataPurpose
  | ((options: PurposeOptions) => ClassDefinition | LearningPurpose | DataDefinition | DataPurpose)
  | { make(options: PurposeOptions): ClassDefinition | LearningPurpose | DataDefinition | DataPurpose };

export declare function definitionOf(exported: PurposeExport, options?: PurposeOptions, where?: string): ClassDefinition | DataDefinition;
/** The definition a CommonJS purpose module (an absolute path) exports; throws naming the file. */
export declare function loadPurposeModule(file: string, options?: PurposeOptions): ClassDefinition | DataDefinition;
/** At most `limit` requests pending (DroidStar §5.3). */
export declare function atMostPending(requests: string[], responses: string[], limit?: number): PurposeFilter;
export declare function both(first: PurposeFilter | null | undefined, second: PurposeFilter | null | undefined): PurposeFilter;
/** No callin while a callback the previous callin caused is undelivered. */
export declare function callbacksDrained(): PurposeFilter;
export declare const settle: {
  /** Resolves after `turns` turns of the event loop (default 2). */
  turns(turns?: number): Promise<void>;
  /** Resolves once activity() lies idleMs in the past; rejects after limitMs. */
  idle(activity: () => number, idleMs: number, limitMs?: number): Promise<void>;
};
/** The reserved symbols: ok, err, quiet, wait. */
export declare const RESERVED: Set<string>;

/** A broken harness (transport, timing assumption violated, crash): never an answer. */
export declare class DeviceError extends Error {}
/** One word answered in two ways. */
export declare class NondeterminismError extends Error {
  constructor(message: string, data?: NondeterminismData);
  /** The word and its distinct answers, as the agent sends them (`value.nondeterminism`). */
  data?: NondeterminismData;
}
export interface NondeterminismData { inputs: string[]; answers: { outputs: string[]; count: number }[]; }

export interface DeviceConfig { variants?: 'compare' | 'split' | 'first'; timing?: Partial<Timing>; }
export interface RunResult { outputs: string[]; steps: number; waits: number; }

/** Runs a definition in this process (as typestar's InProcessDevice). */
export declare class NodeDevice {
  constructor(definition: ClassDefinition, config?: DeviceConfig);
  readonly name: string;
  readonly quietIsStable: boolean;
  readonly inputs: string[];
  readonly outputs: string[];
  readonly timing: Timing;
  /** Throws DeviceError for a recorded timing violation. */
  checkTiming(): void;
  reset(): Promise<void>;
  step(input: string, timeoutMs?: number): Promise<string>;
  finish(): Promise<void>;
  /** One query: reset, the inputs, finish. */
  run(inputs: string[]): Promise<RunResult>;
}

export interface AgentConfig {
  token: string; host?: string; port?: number; maxSessions?: number; idleTimeoutMs?: number;
  maxBodyBytes?: number; maxHeaderBytes?: number; maxJsonDepth?: number; maxConnections?: number;
  connectionTimeoutMs?: number;
}

/** Serves a device over the HTTP device protocol /v1 (device/PROTOCOL.md). */
export declare class Agent {
  constructor(makeDevice: () => NodeDevice | DataDevice, config: AgentConfig);
  /** Binds and listens; resolves with the port. */
  start(): Promise<number>;
  stop(): Promise<void>;
  readonly port: number;
  readonly url: string;
  harnessError(message: string): void;
}
/** The protocol name, 'typestar-device/1'. */
export declare const PROTOCOL: string;

export { specTests } from './test';
