// Types of reviewhost_check.js, the reviewhost side of a validator: the root, globs,
// verdicts, the export. See that file for how each works.

/** Where a check looked and what it saw there. */
export interface Evidence {
  /** Path relative to the repository root. */
  path: string;
  /** 1-based line number, when the evidence is a line of a file. */
  line?: number;
  /** The relevant text (a matching line, a missing needle, ...). */
  text: string;
}

/** The answer to "does the assertion hold?". */
export interface Verdict {
  passed: boolean;
  /** One line for a human: why it passed or failed. */
  message: string;
  evidence: Evidence[];
}

/** Bytes `Root.read` returns at most unless told otherwise. */
export const READ_LIMIT: number;

/** Throw it to say "could not evaluate": the host reports status `error`, never a pass. */
export class CheckError extends Error {}

export function passed(message: string): Verdict;
export function failed(message: string, evidence?: Iterable<Evidence>): Verdict;
export function evidence(path: string, text: string, line?: number): Evidence;

export interface WalkOptions {
  /** Also list names starting with '.' (skipped by default). */
  hidden?: boolean;
}

/** The repository: `/` in the sandbox. Symlinks are never followed. */
export class Root {
  /** The root-relative directories this check can see: [''] for the whole root. */
  visible(): string[];
  /** The regular files under `under` ('.' for everything visible), sorted. */
  files(under?: string, options?: WalkOptions): string[];
  /** The files whose root-relative path matches any of `globs` (`src/**\/*.ts`), sorted. */
  filesMatching(globs: string[], options?: WalkOptions): string[];
  /** The bytes of a regular file of at most `limit` bytes. */
  read(path: string, limit?: number): Uint8Array;
  /** `read`, as UTF-8 text. */
  readText(path: string, limit?: number): string;
}

/** A glob as a RegExp over whole root-relative paths. */
export function compileGlob(glob: string): RegExp;

/** A validator: `config` is the assertion's `config`, parsed (`null` when absent). */
export type Validate = (id: string, config: unknown, root: Root) => Verdict;

/** What the module exports as `validator`. */
export function exportValidator(validate: Validate): {
  validate(id: string, config: string): Verdict;
};
