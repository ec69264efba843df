// TypeScript declarations of typestar-node-device/test (test.js / test.mjs): the node:test runner of
// specs (lib/spec_tests.js). Checked against the real exports by tests/node/js/package.test.js.
import type { ClassDefinition, DataPurpose, LearningPurpose, PurposeExport, PurposeOptions } from './index';

export interface SpecTestsOptions {
  /** The spec's name when it is learned (default: the file's stem). */
  name?: string;
  /** The bound of a first learning: a number or 'auto' (TYPESTAR_BOUND wins). */
  bound?: number | 'auto';
  /** 'lstar' or 'lsharp' (TYPESTAR_LEARNER wins). */
  learner?: 'lstar' | 'lsharp';
  /** Update mode (also TYPESTAR_UPDATE=1 or --update). */
  update?: boolean;
  /**
   * 'check' (the only engine): one `typestar check --format json` per spec (TYPESTAR_ENGINE wins).
   * @deprecated The option itself: 'local' (words run here) is removed; it is still accepted for one
   * release, warns once on stderr and runs the check engine.
   */
  engine?: 'local' | 'check';
  /** tmax / tmin in ms over the purpose's own (TYPESTAR_TMAX / TYPESTAR_TMIN win); a settings error for a data purpose. */
  tmax?: number;
  tmin?: number;
  purposeOptions?: PurposeOptions;
  variants?: 'compare' | 'split' | 'first';
  /** One `describe` per state holding its transitions' tests. */
  nested?: boolean;
  /** node:test's test and describe (for tests of the runner). */
  test?: (name: string, body: (t: any) => unknown) => unknown;
  describe?: (name: string, body: () => unknown) => unknown;
}

/**
 * Registers one node:test test per transition of the spec `specFile` (a path), run against `purpose`:
 * a typestate spec against a learning purpose, a register-automaton spec against a DataPurpose.
 */
export declare function specTests(specFile: string, purpose: PurposeExport | ClassDefinition | LearningPurpose | DataPurpose,
                                  options?: SpecTestsOptions): void;
export interface TraceStep { state: string; input: string; expected: string; actual: string; }
/**
 * The aligned trace, as typestar::format_trace.
 * @deprecated The runner no longer formats traces: `typestar check --format json` gives each failing test's `trace_text`.
 */
export declare function formatTrace(steps: TraceStep[], indentBy?: number): string;
/**
 * `<spec without .yaml>.proposed.<ext>`.
 * @deprecated The runner no longer names proposals: `typestar check --format json` writes them and says where (`proposal.file`).
 */
export declare function proposedPath(spec: string, ext: string): string;
/** An environment variable's truth (set, non-empty, not 0/false/no/off). */
export declare function envTrue(value: string | undefined): boolean;
/**
 * The outputs a suite (typestar suite --format json) predicts for `inputs`.
 * @deprecated The runner no longer predicts outputs: the session's check does (`typestar check --format json`).
 */
export declare function predict(suite: object, inputs: string[]): string[];
