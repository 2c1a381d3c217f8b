import { IReport, readReport } from '../report';
import compareJson from './fixtures/compare.json';
import reportJson from './fixtures/report.json';

const FIXTURES: Record<string, unknown> = { 'report.json': reportJson, 'compare.json': compareJson };

/** A report written by kernellab's notebook layer (%%tile_kernel on the CPU target). */
export function realReport(): IReport {
  return readReport(fixture('report.json'));
}

/** A fresh copy of a fixture (tests may change it). */
export function fixture(name: string): unknown {
  return JSON.parse(JSON.stringify(FIXTURES[name]));
}

/** A small report: source lines 10..13, two stages with known maps. */
export function smallReport(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    kernel: 'k',
    target: 'cpu',
    options: { opt_level: 3 },
    source: { file: '/x/k.py', first_line: 10, text: 'def k(x):\n    a = 1\n    b = a + 1\n    return b\n' },
    stages: [
      {
        name: 'tile',
        text: 'func @k {\n  %0 = c1\n  %1 = add\n  %2 = add2\n  ret\n}\n',
        lines: [
          [2, 11],
          [3, 12],
          [4, 12],
          [5, 13]
        ],
        seconds: 0.001
      },
      {
        name: 'asm',
        text: 'k:\n  mov\n  add\n  add\n  ret\n',
        lines: [
          [2, 11],
          [3, 12],
          [4, 12],
          [5, 13]
        ],
        seconds: 0.002
      }
    ],
    metadata: { compile_seconds: { lower: 0.002, tile: 0.001, asm: 0.002, total: 0.005 }, shared: 0 },
    diagnostics: [],
    ...overrides
  };
}
