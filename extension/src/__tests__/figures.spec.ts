import {
  compileTime,
  constexprFacts,
  formatBytes,
  formatSeconds,
  relativeChange,
  resourceFigures,
  runFacts
} from '../figures';
import { readReport } from '../report';
import { realReport, smallReport } from './helpers';

describe('compile time', () => {
  it('breaks the time down by step, in order, against the recorded total', () => {
    const time = compileTime(readReport(smallReport()))!;
    expect(time.total).toBeCloseTo(0.005);
    expect(time.slices.map(slice => slice.name)).toEqual(['lower', 'tile', 'asm']);
    expect(time.slices.map(slice => slice.share)).toEqual([0.4, 0.2, 0.4]);
  });

  it('uses the sum when the total is missing or smaller', () => {
    const report = readReport(smallReport({ metadata: { compile_seconds: { a: 0.5, b: 1.5, total: 1 } } }));
    expect(compileTime(report)!.total).toBe(2);
    expect(compileTime(readReport(smallReport({ metadata: {} })))).toBeNull();
  });

  it('reads a real report', () => {
    const time = compileTime(realReport())!;
    expect(time.slices.length).toBeGreaterThan(3);
    expect(time.slices.reduce((sum, slice) => sum + slice.share, 0)).toBeLessThanOrEqual(1 + 1e-9);
  });
});

describe('figures', () => {
  it('formats seconds and bytes', () => {
    expect(formatSeconds(2.5)).toBe('2.50 s');
    expect(formatSeconds(0.25)).toBe('250 ms');
    expect(formatSeconds(0.0123)).toBe('12.3 ms');
    expect(formatSeconds(0.0000425)).toBe('43 µs');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2048)).toBe('2.0 KiB');
    expect(formatBytes(3 << 20)).toBe('3.0 MiB');
  });

  it('shows warps and stages for GPU targets only', () => {
    const metadata = { registers: 40, spills: 0, shared: 4096, num_warps: 4, binary_stages: { cubin: 5000 } };
    const gpu = resourceFigures(readReport(smallReport({ target: 'cuda:sm_90a', metadata })));
    expect(gpu.map(figure => `${figure.label}=${figure.text}`)).toEqual([
      'registers=40',
      'spills=0 B',
      'shared memory=4.0 KiB',
      'warps=4',
      'cubin size=4.9 KiB'
    ]);
    const cpu = resourceFigures(readReport(smallReport({ metadata })));
    expect(cpu.map(figure => figure.label)).not.toContain('warps');
    expect(cpu.map(figure => figure.label)).toContain('stack frame'); // the CPU's tiles live on the stack
  });

  it('reads the run facts and constexprs the magic records', () => {
    const report = readReport(
      smallReport({ metadata: { run: { time: '12 µs', 'GB/s': '3.5', bad: {} }, constexprs: { BLOCK: 64 } } })
    );
    expect(runFacts(report)).toEqual([
      ['time', '12 µs'],
      ['GB/s', '3.5']
    ]);
    expect(constexprFacts(report)).toEqual(['BLOCK=64']);
    expect(runFacts(realReport())).toEqual([['check', 'out ok']]);
  });

  it('says how B changed from A', () => {
    expect(relativeChange(100, 112)).toBe('+12%');
    expect(relativeChange(100, 97)).toBe('-3.0%');
    expect(relativeChange(5, 5)).toBe('=');
    expect(relativeChange(0, 5)).toBe('');
  });
});
