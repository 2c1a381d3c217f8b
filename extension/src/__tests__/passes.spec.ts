import { defaultPass, passLines, passSummary, PassView } from '../passes';
import { readReport, ReportError } from '../report';
import { ReportView } from '../viewer';
import { smallReport } from './helpers';

/** A version 2 report: source lines 10..13 and four passes (tile, tile, tile, asm). */
function passesReport(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const tile0 = 'func @k {\n  %0 = c1\n  %1 = add\n  %2 = add2\n  ret\n}\n';
  const tile1 = 'func @k {\n  %0 = c1\n  %2 = add3\n  ret\n}\n';
  return smallReport({
    version: 2,
    passes: [
      { name: 'lower', dialect: 'tile', ms: 2, changed: true, base: null, text: tile0, lines: [[2, 11], [3, 12], [4, 12], [5, 13]] },
      { name: 'cse', dialect: 'tile', ms: 0.5, changed: true, base: 0, text: tile1, lines: [[2, 11], [3, 12], [4, 13]] },
      { name: 'dce', dialect: 'tile', ms: 0.25, changed: false, base: 1, text: tile1, lines: [[2, 11], [3, 12], [4, 13]] },
      { name: 'asm', dialect: 'asm', ms: 4, changed: true, base: null, text: 'k:\n  add\n  ret\n', lines: [[2, 12], [3, 13]] }
    ],
    ...overrides
  });
}

describe('the passes of a report', () => {
  it('are read from version 2 and absent from version 1', () => {
    expect(readReport(smallReport()).passes).toEqual([]);
    const report = readReport(passesReport());
    expect(report.passes.map(entry => [entry.name, entry.base, entry.changed])).toEqual([
      ['lower', null, true],
      ['cse', 0, true],
      ['dce', 1, false],
      ['asm', null, true]
    ]);
  });

  it('refuse a base that is not an earlier pass of the same dialect', () => {
    for (const base of [1, 3, 'x', -1]) {
      const data = passesReport();
      (data.passes as Array<Record<string, unknown>>)[3].base = base;
      expect(() => readReport(data)).toThrow(ReportError);
    }
    expect(() => readReport(passesReport({ passes: 'no' }))).toThrow('passes must be a list');
    expect(() => readReport(smallReport({ version: 3 }))).toThrow('version 1, 2');
  });

  it('diff each pass against its base, lines keeping their source line', () => {
    const report = readReport(passesReport());
    const lines = passLines(report.passes, 1);
    expect(lines.filter(line => line.kind === 'removed').map(line => [line.a, line.text, line.source])).toEqual([
      [3, '  %1 = add', 12],
      [4, '  %2 = add2', 12]
    ]);
    expect(lines.filter(line => line.kind === 'added').map(line => [line.b, line.text, line.source])).toEqual([
      [3, '  %2 = add3', 12]
    ]);
    expect(passSummary(report.passes, 1)).toBe('−2 +1 lines');
    expect(passSummary(report.passes, 2)).toBe('unchanged');
    expect(passSummary(report.passes, 3)).toBe('3 lines, first asm');
    expect(passLines(report.passes, 3).every(line => line.kind === 'same')).toBe(true);
    expect(defaultPass(report.passes)).toBe(1);
  });
});

describe('PassView', () => {
  it('shows a timeline and the chosen pass diffed against its base', () => {
    const view = new PassView(readReport(passesReport()));
    const buttons = [...view.node.querySelectorAll('.klv-timeline .klv-pass')];
    expect(buttons.map(button => button.querySelector('.klv-pass-name')!.textContent)).toEqual(['lower', 'cse', 'dce', 'asm']);
    expect(buttons.map(button => button.classList.contains('klv-same'))).toEqual([false, false, true, false]);
    const widths = buttons.map(button => (button.querySelector('.klv-pbar-fill') as HTMLElement).style.width);
    expect(widths).toEqual(['50%', '12.5%', '6.25%', '100%']);
    expect(view.chosen).toBe(1);
    expect(buttons[1].getAttribute('aria-selected')).toBe('true');
    const removed = [...view.node.querySelectorAll('.klv-dline.klv-removed .klv-text')].map(node => node.textContent);
    expect(removed).toEqual(['  %1 = add', '  %2 = add2']);
    (buttons[2] as HTMLElement).click();
    expect(view.chosen).toBe(2);
    expect(view.node.querySelector('.klv-pass-note')!.textContent).toContain('same as after pass 1 (cse)');
    (buttons[3] as HTMLElement).click();
    expect([...view.node.querySelectorAll('.klv-pass-panel .klv-line .klv-text')].map(node => node.textContent)).toEqual([
      'k:',
      '  add',
      '  ret'
    ]);
  });

  it('never parses pass text as HTML', () => {
    const data = passesReport();
    (data.passes as Array<Record<string, unknown>>)[0].name = '<img src=x onerror=alert(1)>';
    (data.passes as Array<Record<string, unknown>>)[3].text = '<script>alert(1)</script>\n';
    const view = new PassView(readReport(data));
    (view.node.querySelector('.klv-pass[data-pass="3"]') as HTMLElement).click();
    expect(view.node.querySelector('img, script')).toBeNull();
    expect(view.node.textContent).toContain('<script>alert(1)</script>');
  });
});

describe('ReportView with passes', () => {
  it('links a pass line to the source and the stages, both ways', () => {
    const view = new ReportView(readReport(passesReport()));
    document.body.appendChild(view.node);
    try {
      const added = view.node.querySelector('.klv-pass-panel .klv-dline.klv-added') as HTMLElement;
      expect(added.getAttribute('data-source')).toBe('12');
      added.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      expect([...view.selection]).toEqual([12]);
      const litSource = [...view.node.querySelectorAll('.klv-source .klv-line.klv-hl')].map(node => node.getAttribute('data-line'));
      expect(litSource).toEqual(['12']);
      expect(added.classList.contains('klv-hl')).toBe(true);
      view.pin(new Set([11]));
      view.passes!.node.dispatchEvent(new MouseEvent('mouseleave'));
      const litPass = [...view.node.querySelectorAll('.klv-pass-panel .klv-line.klv-hl')].map(node => node.getAttribute('data-source'));
      expect(litPass).toEqual(['11']);
    } finally {
      view.node.remove();
    }
  });

  it('has no pass timeline for a version 1 report', () => {
    const view = new ReportView(readReport(smallReport()));
    expect(view.passes).toBeNull();
    expect(view.node.querySelector('.klv-passes')).toBeNull();
  });
});
