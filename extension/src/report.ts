/**
 * The compile report's JSON (`application/vnd.kernellab.compile+json`), as the notebook layer
 * writes it (kernellab/notebook/bundle.py, schema versions 1 and 2), read defensively: a notebook's
 * outputs are data from anywhere, so every field is checked and anything unexpected becomes a
 * clear error rather than a broken view.
 *
 * Lines are 1-based. `stage_line` counts lines of the stage's text, `source_line` lines of the
 * source *file* (so `source.text`'s first line is `source.first_line`).
 */

export const MIME_TYPE = 'application/vnd.kernellab.compile+json';
export const COMPARE_MIME_TYPE = 'application/vnd.kernellab.compare+json';

/** The compile-report schema versions this viewer understands (2 adds `passes`). */
export const SCHEMA_VERSIONS: readonly number[] = [1, 2];

/** The A/B bundle versions this viewer understands. */
export const COMPARE_VERSIONS: readonly number[] = [1];

export type Severity = 'info' | 'warning' | 'error';

export interface ISource {
  file: string;
  firstLine: number;
  text: string;
}

export interface IStage {
  name: string;
  text: string;
  /** [stage_line, source_line] pairs. */
  lines: ReadonlyArray<readonly [number, number]>;
  seconds: number | null;
  /** Lines of kinds a reader usually hides (assembly stages; kernellab/notebook/asm_filters.py). */
  filters: Partial<Record<FilterKind, readonly number[]>>;
}

/** The kinds of lines the assembly filters hide, in the order the viewer offers them. */
export const FILTER_KINDS = ['directive', 'comment', 'label', 'constant'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

/** The IR after one pass of the compilation (kernellab/notebook/pass_bundle.py). */
export interface IPass {
  name: string;
  /** Which IR `text` is: tile, tile.gpu, llvm, asm, ptx, py. */
  dialect: string;
  ms: number;
  changed: boolean;
  /** The pass it is diffed against (an earlier one of the same dialect), or null. */
  base: number | null;
  text: string;
  /** [text_line, source_line] pairs. */
  lines: ReadonlyArray<readonly [number, number]>;
}

export interface IDiagnostic {
  severity: Severity;
  message: string;
  stage: string | null;
}

export interface IReport {
  version: number;
  kernel: string;
  target: string;
  options: Record<string, unknown>;
  source: ISource;
  stages: IStage[];
  metadata: Record<string, unknown>;
  diagnostics: IDiagnostic[];
  /** Every pass in order (empty for a version 1 report). */
  passes: IPass[];
}

/** One config's run in an A/B comparison (kernellab/notebook/runner.py's measurements). */
export interface IRun {
  label: string;
  /** The meta-parameters and options of this config. */
  settings: Record<string, unknown>;
  /** Numeric measurements: ms, ms_p20, ms_p80, GB/s, TFLOP/s, compile_s, registers, spills... */
  numbers: Record<string, number>;
  /** "ok", or why the output differed; null when not checked. */
  check: string | null;
}

/** One side of an A/B comparison: its label, its run and its compile report. */
export interface ICompareSide {
  label: string;
  run: IRun;
  report: IReport;
}

/** Two configs of one kernel (`application/vnd.kernellab.compare+json`). */
export interface ICompare {
  a: ICompareSide;
  b: ICompareSide;
}

/** A bundle that does not follow the schema; the message says what is wrong. */
export class ReportError extends Error {}

const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error'];

/**
 * Split text into lines exactly as Python's `str.splitlines()` does, so that line numbers
 * agree with the ones the Python side wrote.
 */
export function splitLines(text: string): string[] {
  if (text === '') {
    return [];
  }
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLineNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new ReportError(message);
  }
}

function readSource(value: unknown): ISource {
  check(
    isObject(value) && typeof value.text === 'string' && isLineNumber(value.first_line),
    'source must be {file, first_line >= 1, text}'
  );
  const file = typeof value.file === 'string' ? value.file : '';
  return { file, firstLine: value.first_line as number, text: value.text as string };
}

function readPairs(name: string, value: unknown): Array<[number, number]> {
  check(Array.isArray(value), `${name}: lines must be a list of [stage_line, source_line]`);
  return value.map(pair => {
    check(
      Array.isArray(pair) && pair.length === 2 && isLineNumber(pair[0]) && isLineNumber(pair[1]),
      `${name}: a line pair is [stage_line, source_line] (1-based), got ${JSON.stringify(pair)}`
    );
    return [pair[0], pair[1]];
  });
}

function readStage(value: unknown): IStage {
  check(
    isObject(value) && typeof value.name === 'string' && typeof value.text === 'string',
    'a stage must be {name, text, lines}'
  );
  const name = value.name as string;
  const seconds = typeof value.seconds === 'number' && isFinite(value.seconds) ? value.seconds : null;
  const filters = readFilters(name, value.filters);
  return { name, text: value.text as string, lines: readPairs(`stage ${name}`, value.lines), seconds, filters };
}

/** A stage's optional `filters`: kind -> line numbers (unknown kinds are ignored). */
function readFilters(name: string, value: unknown): IStage['filters'] {
  if (value === undefined) {
    return {};
  }
  check(isObject(value), `stage ${name}: filters must map a kind of line to line numbers`);
  const filters: IStage['filters'] = {};
  for (const kind of FILTER_KINDS) {
    const numbers = (value as Record<string, unknown>)[kind];
    if (numbers === undefined) {
      continue;
    }
    check(
      Array.isArray(numbers) && numbers.every(isLineNumber),
      `stage ${name}: filters.${kind} must be a list of line numbers`
    );
    filters[kind] = numbers as number[];
  }
  return filters;
}

function readPass(value: unknown, index: number, earlier: readonly IPass[]): IPass {
  check(
    isObject(value) && typeof value.name === 'string' && typeof value.dialect === 'string' && typeof value.text === 'string',
    `pass ${index} must be {name, dialect, ms, changed, base, text, lines}`
  );
  const dialect = value.dialect as string;
  const base = value.base;
  check(
    base === null || (Number.isInteger(base) && (base as number) >= 0 && (base as number) < index &&
      earlier[base as number].dialect === dialect),
    `pass ${index}: base must be null or an earlier pass of dialect ${dialect}, got ${JSON.stringify(base)}`
  );
  const ms = typeof value.ms === 'number' && isFinite(value.ms) && value.ms >= 0 ? value.ms : 0;
  return {
    name: value.name as string,
    dialect,
    ms,
    changed: value.changed !== false,
    base: base as number | null,
    text: value.text as string,
    lines: readPairs(`pass ${index} (${value.name as string})`, value.lines)
  };
}

function readPasses(value: unknown, version: number): IPass[] {
  if (version < 2) {
    return [];
  }
  check(Array.isArray(value), 'passes must be a list (version 2)');
  const passes: IPass[] = [];
  (value as unknown[]).forEach((entry, index) => passes.push(readPass(entry, index, passes)));
  return passes;
}

function readDiagnostic(value: unknown): IDiagnostic {
  check(
    isObject(value) && typeof value.message === 'string',
    `a diagnostic must be {severity, message, stage}, got ${JSON.stringify(value)}`
  );
  const severity = SEVERITIES.includes(value.severity as Severity) ? (value.severity as Severity) : 'info';
  const stage = typeof value.stage === 'string' ? value.stage : null;
  return { severity, message: value.message as string, stage };
}

/** Read one compile report (throws ReportError naming the first problem). */
export function readReport(data: unknown): IReport {
  check(isObject(data), 'a compile report is a JSON object');
  check(
    typeof data.version === 'number' && SCHEMA_VERSIONS.includes(data.version),
    `this viewer reads compile reports of version ${SCHEMA_VERSIONS.join(', ')}, got ${JSON.stringify(data.version)}` +
      ' (update kernellab so the extension and the library match)'
  );
  check(typeof data.kernel === 'string' && typeof data.target === 'string', 'kernel and target must be strings');
  check(Array.isArray(data.stages), 'stages must be a list');
  const diagnostics = Array.isArray(data.diagnostics) ? data.diagnostics : [];
  return {
    version: data.version as number,
    kernel: data.kernel as string,
    target: data.target as string,
    options: isObject(data.options) ? data.options : {},
    source: readSource(data.source),
    stages: (data.stages as unknown[]).map(readStage),
    metadata: isObject(data.metadata) ? data.metadata : {},
    diagnostics: diagnostics.map(readDiagnostic),
    passes: readPasses(data.passes, data.version as number)
  };
}

function readRun(value: unknown, label: string): IRun {
  const run = isObject(value) ? value : {};
  const numbers: Record<string, number> = {};
  for (const [name, number] of Object.entries(run)) {
    if (typeof number === 'number' && isFinite(number)) {
      numbers[name] = number;
    }
  }
  return {
    label: typeof run.label === 'string' && run.label ? run.label : label,
    settings: isObject(run.settings) ? run.settings : {},
    numbers,
    check: typeof run.check === 'string' ? run.check : null
  };
}

/** Read an A/B bundle: `{version, labels: [A, B], runs: [run, run], a: report, b: report}`. */
export function readCompare(data: unknown): ICompare {
  check(isObject(data), 'an A/B comparison is a JSON object');
  check(
    typeof data.version === 'number' && COMPARE_VERSIONS.includes(data.version),
    `this viewer reads A/B comparisons of version ${COMPARE_VERSIONS.join(', ')}, got ${JSON.stringify(data.version)}`
  );
  const labels = Array.isArray(data.labels) ? data.labels : [];
  const runs = Array.isArray(data.runs) ? data.runs : [];
  const side = (i: number, key: 'a' | 'b'): ICompareSide => {
    const label = typeof labels[i] === 'string' && labels[i] ? (labels[i] as string) : key.toUpperCase();
    let report: IReport;
    try {
      report = readReport(data[key]);
    } catch (error) {
      throw new ReportError(`${key} (${label}): ${(error as Error).message}`);
    }
    return { label, run: readRun(runs[i], label), report };
  };
  return { a: side(0, 'a'), b: side(1, 'b') };
}
