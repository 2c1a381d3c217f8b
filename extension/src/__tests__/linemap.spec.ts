import { colourOf, defaultStages, invertLineMap, LineIndex, PALETTE_SIZE, ReportIndex } from '../linemap';
import { readReport } from '../report';
import { realReport, smallReport } from './helpers';

describe('LineIndex', () => {
  it('inverts a line map', () => {
    const pairs: Array<[number, number]> = [
      [3, 7],
      [1, 5],
      [2, 7],
      [9, 5]
    ];
    const index = new LineIndex(pairs);
    expect(index.sourceOf(3)).toBe(7);
    expect(index.sourceOf(4)).toBeUndefined();
    expect(index.stageLinesOf(7)).toEqual([2, 3]);
    expect(index.stageLinesOf(5)).toEqual([1, 9]);
    expect(index.stageLinesOf(6)).toEqual([]);
    expect(index.sourceLines).toEqual([5, 7]);
    expect(index.size).toBe(4);
    expect([...invertLineMap(pairs).entries()]).toEqual([
      [5, [1, 9]],
      [7, [2, 3]]
    ]);
  });

  it('keeps the first source line of a repeated stage line', () => {
    const index = new LineIndex([
      [1, 5],
      [1, 6]
    ]);
    expect(index.sourceOf(1)).toBe(5);
    expect(index.stageLinesOf(6)).toEqual([]);
  });

  it('round-trips every pair of a real report', () => {
    const report = realReport();
    for (const stage of report.stages) {
      const index = new LineIndex(stage.lines);
      for (const [stageLine, sourceLine] of stage.lines) {
        expect(index.sourceOf(stageLine)).toBe(sourceLine);
        expect(index.stageLinesOf(sourceLine)).toContain(stageLine);
      }
      const total = index.sourceLines.reduce((sum, line) => sum + index.stageLinesOf(line).length, 0);
      expect(total).toBe(stage.lines.length);
    }
  });
});

describe('ReportIndex', () => {
  const report = readReport(smallReport());
  const index = new ReportIndex(report);

  it('selects the source line of a pointed-at line', () => {
    expect([...index.selectionOf({ pane: 'source', line: 12 })]).toEqual([12]);
    expect([...index.selectionOf({ pane: 'stage', stage: 'asm', line: 4 })]).toEqual([12]);
    expect([...index.selectionOf({ pane: 'stage', stage: 'asm', line: 1 })]).toEqual([]);
    expect([...index.selectionOf({ pane: 'stage', stage: 'nope', line: 2 })]).toEqual([]);
  });

  it('highlights the counterparts in every pane', () => {
    const highlights = index.highlights(new Set([12]));
    expect(highlights.get('source')).toEqual([12]);
    expect(highlights.get('tile')).toEqual([3, 4]);
    expect(highlights.get('asm')).toEqual([3, 4]);
    expect(index.highlights(new Set([10, 13])).get('tile')).toEqual([5]);
    expect(index.highlights(new Set()).get('asm')).toEqual([]);
    expect(index.stageHighlight('nope', new Set([12]))).toEqual([]);
  });
});

describe('colours and default stages', () => {
  it('gives lines of one source line one colour, cycling the palette', () => {
    expect(colourOf(10, 10)).toBe(0);
    expect(colourOf(10 + PALETTE_SIZE + 3, 10)).toBe(3);
    expect(colourOf(9, 10)).toBe(PALETTE_SIZE - 1);
  });

  it('shows the first stage and the last mapped one', () => {
    expect(defaultStages(realReport().stages)).toEqual(['tile', 'asm']);
    const stages = readReport(smallReport()).stages;
    expect(defaultStages([stages[0]])).toEqual(['tile']);
    expect(defaultStages([stages[0], { ...stages[1], lines: [] }])).toEqual(['tile', 'asm']);
    expect(defaultStages([])).toEqual([]);
  });
});
