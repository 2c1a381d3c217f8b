/**
 * The numbers a report shows beside its code: the compile-time breakdown and the resource
 * figures (registers, spills, shared memory...), read from the report's metadata.
 */

import { IReport } from './report';

export interface ITimeSlice {
  name: string;
  seconds: number;
  /** Share of the total, 0..1. */
  share: number;
}

export interface ICompileTime {
  total: number;
  slices: ITimeSlice[];
}

export interface IFigure {
  key: string;
  label: string;
  value: number;
  text: string;
  format: (value: number) => string;
}

function finiteNumber(value: unknown): value is number {
  return typeof value === 'number' && isFinite(value);
}

/** Seconds as the shortest readable unit (µs, ms or s). */
export function formatSeconds(seconds: number): string {
  const abs = Math.abs(seconds);
  if (abs >= 1) {
    return `${seconds.toFixed(2)} s`;
  }
  if (abs >= 1e-3) {
    return `${(seconds * 1e3).toFixed(abs >= 0.1 ? 0 : 1)} ms`;
  }
  return `${(seconds * 1e6).toFixed(0)} µs`;
}

/** Bytes as B / KiB / MiB. */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) >= 1 << 20) {
    return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  }
  if (Math.abs(bytes) >= 1024) {
    return `${(bytes / 1024).toFixed(1)} KiB`;
  }
  return `${bytes} B`;
}

/**
 * The compile time per step (`metadata.compile_seconds`, in pipeline order). The total is the
 * recorded `total` when there is one (steps may overlap or leave gaps), else the sum.
 */
export function compileTime(report: IReport): ICompileTime | null {
  const recorded = report.metadata.compile_seconds;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) {
    return null;
  }
  const entries = Object.entries(recorded as Record<string, unknown>).filter(
    (entry): entry is [string, number] => entry[0] !== 'total' && finiteNumber(entry[1]) && entry[1] >= 0
  );
  if (entries.length === 0) {
    return null;
  }
  const sum = entries.reduce((acc, [, seconds]) => acc + seconds, 0);
  const given = (recorded as Record<string, unknown>).total;
  const total = finiteNumber(given) && given > 0 ? Math.max(given, sum) : sum;
  const slices = entries.map(([name, seconds]) => ({ name, seconds, share: total > 0 ? seconds / total : 0 }));
  return { total, slices };
}

interface IFigureSpec {
  key: string;
  label: string;
  format: (value: number) => string;
  /** Shown for GPU targets only (warps and CTAs mean nothing on the CPU). */
  gpu?: boolean;
  /** The label on host targets, where the figure means something else (tiles live on the stack). */
  hostLabel?: string;
}

const count = (value: number) => String(value);

/** The resource figures worth a glance, in the order shown. */
const RESOURCE_SPECS: IFigureSpec[] = [
  { key: 'registers', label: 'registers', format: count },
  { key: 'n_regs', label: 'registers', format: count },
  { key: 'spills', label: 'spills', format: formatBytes },
  { key: 'n_spills', label: 'spills', format: formatBytes },
  { key: 'shared', label: 'shared memory', format: formatBytes, hostLabel: 'stack frame' },
  { key: 'local', label: 'local memory', format: formatBytes },
  { key: 'num_warps', label: 'warps', format: count, gpu: true },
  { key: 'num_stages', label: 'stages', format: count, gpu: true },
  { key: 'num_ctas', label: 'CTAs', format: count, gpu: true },
  { key: 'maxnreg', label: 'max registers', format: count, gpu: true }
];

/** Resource figures from the metadata (each label once, first key found wins). */
export function resourceFigures(report: IReport): IFigure[] {
  const seen = new Set<string>();
  const figures: IFigure[] = [];
  const gpu = report.target.startsWith('cuda');
  for (const spec of RESOURCE_SPECS) {
    const value = report.metadata[spec.key];
    const label = !gpu && spec.hostLabel ? spec.hostLabel : spec.label;
    if (!finiteNumber(value) || seen.has(label) || (spec.gpu && !gpu)) {
      continue;
    }
    seen.add(label);
    figures.push({ key: spec.key, label, value, text: spec.format(value), format: spec.format });
  }
  const binary = report.metadata.binary_stages;
  if (typeof binary === 'object' && binary !== null) {
    for (const [name, size] of Object.entries(binary as Record<string, unknown>)) {
      if (finiteNumber(size)) {
        figures.push({
          key: `binary_stages.${name}`,
          label: `${name} size`,
          value: size,
          text: formatBytes(size),
          format: formatBytes
        });
      }
    }
  }
  return figures;
}

function factText(value: unknown): string | null {
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return null;
}

/** Facts of a run the magic made (`metadata.run`: time, GB/s, check... already as text). */
export function runFacts(report: IReport): Array<[string, string]> {
  const run = report.metadata.run;
  if (typeof run !== 'object' || run === null || Array.isArray(run)) {
    return [];
  }
  const facts: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(run as Record<string, unknown>)) {
    const text = factText(value);
    if (text !== null) {
      facts.push([name, text]);
    }
  }
  return facts;
}

/** The constexpr values the kernel was compiled with, as `NAME=value`. */
export function constexprFacts(report: IReport): string[] {
  const constexprs = report.metadata.constexprs;
  if (typeof constexprs !== 'object' || constexprs === null || Array.isArray(constexprs)) {
    return [];
  }
  return Object.entries(constexprs as Record<string, unknown>).map(
    ([name, value]) => `${name}=${factText(value) ?? JSON.stringify(value)}`
  );
}

/** B relative to A as a signed percentage ("+12%", "-3%", "="); empty when A is zero. */
export function relativeChange(a: number, b: number): string {
  if (a === b) {
    return '=';
  }
  if (a === 0) {
    return '';
  }
  const percent = ((b - a) / Math.abs(a)) * 100;
  const rounded = Math.abs(percent) >= 10 ? percent.toFixed(0) : percent.toFixed(1);
  return `${percent > 0 ? '+' : ''}${rounded}%`;
}
