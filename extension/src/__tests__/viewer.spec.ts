import { CompareView, comparisonRows } from '../compare';
import { FOLD_LINES, unmappedRuns } from '../pane';
import { readCompare, readReport } from '../report';
import { ReportView } from '../viewer';
import { fixture, realReport, smallReport } from './helpers';

function lit(root: Element, pane: string): number[] {
  const block = [...root.querySelectorAll('.klv-lines')].filter(
    node => node.getAttribute('data-pane') === pane && (node as HTMLElement).isConnected
  );
  return block.flatMap(node => [...node.querySelectorAll('.klv-line.klv-hl')].map(line => Number(line.getAttribute('data-line'))));
}

function line(root: Element, pane: string, number: number): HTMLElement {
  const block = [...root.querySelectorAll('.klv-lines')].find(node => node.getAttribute('data-pane') === pane)!;
  return block.querySelector(`.klv-line[data-line="${number}"]`) as HTMLElement;
}

function hover(element: Element): void {
  element.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
}

describe('ReportView', () => {
  let view: ReportView;
  let root: HTMLElement;

  beforeEach(() => {
    view = new ReportView(readReport(smallReport()));
    root = view.node;
    document.body.appendChild(root);
  });

  afterEach(() => root.remove());

  it('shows the source beside two stage panes with tabs', () => {
    expect(root.querySelectorAll('.klv-pane')).toHaveLength(3);
    expect(view.shownStages).toEqual(['tile', 'asm']);
    const tabs = [...root.querySelectorAll('.klv-stage')[0].querySelectorAll('.klv-tab')].map(tab => tab.textContent);
    expect(tabs).toEqual(['tile', 'asm']);
    expect(line(root, 'source', 10).textContent).toBe('10def k(x):');
    // a stage line shows its own number, its source line and its text
    expect(line(root, 'tile', 3).textContent).toBe('312  %1 = add');
    expect(line(root, 'tile', 3).classList).toContain('klv-c2');
    expect(line(root, 'source', 12).classList).toContain('klv-c2');
    expect(line(root, 'tile', 1).classList).not.toContain('klv-mapped');
  });

  it('highlights the counterparts of a hovered source line in every stage', () => {
    hover(line(root, 'source', 12).querySelector('.klv-text')!);
    expect(lit(root, 'source')).toEqual([12]);
    expect(lit(root, 'tile')).toEqual([3, 4]);
    expect(lit(root, 'asm')).toEqual([3, 4]);
    expect(root.querySelectorAll('.klv-stage .klv-mark')).toHaveLength(4);
    hover(line(root, 'source', 13));
    expect(lit(root, 'tile')).toEqual([5]);
    expect(lit(root, 'source')).toEqual([13]);
  });

  it('highlights the source line of a hovered stage line, and its lines in the other stage', () => {
    hover(line(root, 'asm', 2));
    expect(lit(root, 'source')).toEqual([11]);
    expect(lit(root, 'tile')).toEqual([2]);
    hover(line(root, 'asm', 1)); // no location: nothing lit
    expect(lit(root, 'source')).toEqual([]);
  });

  it('pins a clicked line until it is clicked again; leaving the panes restores the pin', () => {
    line(root, 'source', 11).click();
    expect(lit(root, 'asm')).toEqual([2]);
    hover(line(root, 'source', 13));
    expect(lit(root, 'asm')).toEqual([5]);
    root.querySelector('.klv-panes')!.dispatchEvent(new MouseEvent('mouseleave'));
    expect(lit(root, 'asm')).toEqual([2]);
    line(root, 'source', 11).click();
    expect(lit(root, 'asm')).toEqual([]);
  });

  it('switches stages with the tabs and keeps the highlight', () => {
    view.pin(new Set([12]));
    const secondPane = root.querySelectorAll('.klv-stage')[1];
    const tileTab = [...secondPane.querySelectorAll('.klv-tab')].find(tab => tab.textContent === 'tile') as HTMLElement;
    tileTab.click();
    expect(view.shownStages).toEqual(['tile', 'tile']);
    expect(tileTab.getAttribute('aria-selected')).toBe('true');
    const shown = secondPane.querySelector('.klv-lines')!;
    expect(shown.getAttribute('data-pane')).toBe('tile');
    expect([...shown.querySelectorAll('.klv-hl')].map(node => node.getAttribute('data-line'))).toEqual(['3', '4']);
  });

  it('hides and shows the second stage pane', () => {
    const toggle = root.querySelector('.klv-split') as HTMLButtonElement;
    toggle.click();
    expect(root.querySelector('.klv-panes')!.classList).toContain('klv-single');
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    toggle.click();
    expect(root.querySelector('.klv-panes')!.classList).not.toContain('klv-single');
  });

  it('shows the compile-time breakdown, figures and diagnostics', () => {
    const report = readReport(
      smallReport({
        target: 'cuda:sm_90a',
        metadata: { compile_seconds: { lower: 0.001, ptx: 0.003 }, registers: 32, num_warps: 4, run: { time: '5 µs' } },
        diagnostics: [{ severity: 'warning', message: 'spills', stage: 'ptx' }]
      })
    );
    const node = new ReportView(report).node;
    expect(node.querySelector('.klv-figure-title')!.textContent).toBe('compile 4.0 ms');
    const widths = [...node.querySelectorAll('.klv-bar .klv-slice')].map(slice => (slice as HTMLElement).style.width);
    expect(widths).toEqual(['25%', '75%']);
    const figures = [...node.querySelectorAll('.klv-figures .klv-figure')].map(item => item.textContent);
    expect(figures).toEqual(['time5 µs', 'registers32', 'warps4']);
    expect(node.querySelector('.klv-notes .klv-warning')!.textContent).toBe('warningptx: spills');
  });

  it('renders a real report from the notebook layer', () => {
    const node = new ReportView(realReport()).node;
    document.body.appendChild(node);
    expect(node.querySelectorAll('.klv-stage')).toHaveLength(2);
    const asm = realReport().stages[2];
    const busiest = Math.max(...asm.lines.map(([, source]) => source));
    const mapped = asm.lines.filter(([, source]) => source === busiest).map(([stageLine]) => stageLine);
    expect(mapped.length).toBeGreaterThan(0);
    hover(line(node, 'source', busiest));
    expect(lit(node, 'asm')).toEqual(mapped);
    node.remove();
  });
});

describe('folding lines with no source line', () => {
  it('finds long unmapped runs', () => {
    const mapped = [true, false, false, false, true, false, false];
    expect(unmappedRuns(mapped, 3)).toEqual([[1, 4]]);
    expect(unmappedRuns(mapped, 2)).toEqual([
      [1, 4],
      [5, 7]
    ]);
    expect(unmappedRuns([], 1)).toEqual([]);
    // filtered (hidden) lines neither end a run nor lengthen it
    const hidden = [false, false, true, true, false, false];
    expect(unmappedRuns([true, false, false, false, false, true], 3, hidden)).toEqual([]);
    expect(unmappedRuns([false, false, true, false, false, true], 4, [false, false, true, false, false, false])).toEqual([[0, 5]]);
    expect(unmappedRuns([true, false, false, false, false, true], 2, hidden)).toEqual([[1, 5]]);
  });

  it('folds the constant pool of a stage and unfolds it on a click', () => {
    const report = realReport();
    const node = new ReportView(report).node;
    document.body.appendChild(node);
    const asm = [...node.querySelectorAll('.klv-stage')][1];
    const button = asm.querySelector('.klv-unfold') as HTMLElement;
    expect(button.textContent).toMatch(/^⋯ (\d+) lines with no source line \(1–\1\)$/);
    const folded = button.parentElement!.querySelectorAll('.klv-folded .klv-line').length;
    expect(folded).toBeGreaterThanOrEqual(FOLD_LINES);
    expect(button.textContent).toContain(`${folded} lines`);
    const mapped = new Set(report.stages[2].lines.map(([line]) => line));
    for (const line of asm.querySelectorAll('.klv-folded .klv-line')) {
      expect(mapped.has(Number(line.getAttribute('data-line')))).toBe(false);
    }
    button.click();
    const numbers = [...asm.querySelectorAll('.klv-lines > .klv-line')].map(line => Number(line.getAttribute('data-line')));
    expect(numbers.slice(0, folded + 1)).toEqual(Array.from({ length: folded + 1 }, (_, i) => i + 1));
    expect(node.querySelectorAll('.klv-source .klv-unfold')).toHaveLength(0);
    node.remove();
  });
});

describe('CompareView', () => {
  it('compares the runs, compile times and each stage of two configs', () => {
    const compare = readCompare(fixture('compare.json'));
    const node = new CompareView(compare).node;
    const rows = comparisonRows(compare);
    expect(rows[0]).toMatchObject({ group: 'run', label: 'config', a: 'BLOCK=64', b: 'BLOCK=128' });
    const time = rows.find(row => row.label === 'time')!;
    expect(time.verdict).toBe(compare.b.run.numbers.ms < compare.a.run.numbers.ms ? 'better' : 'worse');
    expect(rows.some(row => row.group === 'compile time' && row.label === 'total')).toBe(true);
    const tabs = [...node.querySelectorAll('.klv-diffs .klv-tab')].map(tab => tab.textContent);
    expect(tabs).toEqual(['tile', 'llvm']);
    const summary = node.querySelector('.klv-diff-summary')!.textContent!;
    expect(summary).toMatch(/^tile: −\d+ \+\d+ lines/);
    expect(node.querySelector('.klv-dline.klv-removed .klv-text')!.textContent).toContain('64');
    expect(node.querySelector('.klv-dline.klv-added .klv-text')!.textContent).toContain('128');
  });

  it('opens either config as a full report', () => {
    const node = new CompareView(readCompare(fixture('compare.json'))).node;
    const reportTab = [...node.querySelectorAll('.klv-sides > .klv-tabs .klv-tab')].find(
      tab => tab.textContent === 'BLOCK=128 report'
    ) as HTMLElement;
    reportTab.click();
    expect(node.querySelector('.klv-sides > .klv-panel .klv-report .klv-panes')).not.toBeNull();
  });

  it('expands folded unchanged lines', () => {
    const compare = readCompare(fixture('compare.json'));
    const node = new CompareView(compare).node;
    const llvmTab = [...node.querySelectorAll('.klv-diffs .klv-tab')].find(tab => tab.textContent === 'llvm') as HTMLElement;
    llvmTab.click();
    const fold = node.querySelector('.klv-fold') as HTMLElement;
    const before = node.querySelectorAll('.klv-diffs .klv-panel .klv-dline').length;
    const count = Number(/(\d+) unchanged/.exec(fold.textContent!)![1]);
    fold.click();
    expect(node.querySelectorAll('.klv-diffs .klv-panel .klv-dline').length).toBe(before + count);
  });
});
