import { readCompare, readReport, ReportError, splitLines } from '../report';
import { fixture, realReport, smallReport } from './helpers';

describe('splitLines', () => {
  it('splits like Python str.splitlines', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a')).toEqual(['a']);
    expect(splitLines('a\n')).toEqual(['a']);
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b']);
    expect(splitLines('a\r\nb\rc\fd\u2028e\n')).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('readReport', () => {
  it('reads a report written by the notebook layer', () => {
    const report = realReport();
    expect(report.kernel).toBe('add');
    expect(report.target).toBe('cpu');
    expect(report.source.firstLine).toBe(2);
    expect(report.stages.map(stage => stage.name)).toEqual(['tile', 'llvm', 'asm']);
    for (const stage of report.stages) {
      const count = splitLines(stage.text).length;
      expect(stage.lines.length).toBeGreaterThan(0);
      for (const [stageLine, sourceLine] of stage.lines) {
        expect(stageLine).toBeLessThanOrEqual(count);
        expect(sourceLine).toBeGreaterThanOrEqual(report.source.firstLine);
      }
    }
  });

  it('names what is wrong', () => {
    expect(() => readReport(null)).toThrow(ReportError);
    expect(() => readReport(smallReport({ version: 99 }))).toThrow(/version 1, 2, got 99/);
    expect(() => readReport(smallReport({ source: { text: 1 } }))).toThrow(/source must be/);
    const badPairs = smallReport();
    (badPairs.stages as any)[0].lines = [[0, 11]];
    expect(() => readReport(badPairs)).toThrow(/stage tile: a line pair is/);
    expect(() => readReport(smallReport({ stages: 'x' }))).toThrow(/stages must be a list/);
  });

  it('fills what is optional', () => {
    const report = readReport(smallReport({ diagnostics: [{ severity: 'odd', message: 'm' }], options: 3 }));
    expect(report.diagnostics).toEqual([{ severity: 'info', message: 'm', stage: null }]);
    expect(report.options).toEqual({});
  });
});

describe('readCompare', () => {
  it('reads an A/B bundle written by the notebook layer', () => {
    const compare = readCompare(fixture('compare.json'));
    expect(compare.a.label).toBe('BLOCK=64');
    expect(compare.b.label).toBe('BLOCK=128');
    expect(compare.a.run.settings).toEqual({ BLOCK: 64 });
    expect(compare.b.run.numbers.ms).toBeGreaterThan(0);
    expect(compare.a.report.stages.map(stage => stage.name)).toEqual(['tile', 'llvm']);
  });

  it('says which side is broken', () => {
    const data = fixture('compare.json') as any;
    data.b = { version: 1 };
    expect(() => readCompare(data)).toThrow(/^b \(BLOCK=128\): /);
  });
});
