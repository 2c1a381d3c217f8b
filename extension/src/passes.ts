/**
 * The pass timeline of a compile report: one button per pass (its number, name, dialect, a bar
 * as long as its time against the slowest pass, and what it changed); choosing one shows its IR
 * diffed against the pass it is based on (the previous one of its dialect, `base`), unchanged
 * runs folded. Every line that came from a source line carries that line's colour and number,
 * and pointing at it selects that source line in the whole report (ReportView wires it).
 */

import { clear, h } from './dom';
import { diffLines, diffRows, diffStats, IDiffLine } from './diff';
import { formatSeconds } from './figures';
import { colourOf, LineIndex } from './linemap';
import { IPass, IReport, splitLines } from './report';

/** A line of the chosen pass's view: a diff line and the source line it came from. */
export interface IPassLine extends IDiffLine {
  source: number | undefined;
}

/** The lines shown for pass `index`: its IR against its base (every line `same` when it has none). */
export function passLines(passes: readonly IPass[], index: number): IPassLine[] {
  const entry = passes[index];
  const after = new LineIndex(entry.lines);
  const lines = splitLines(entry.text);
  if (entry.base === null) {
    return lines.map((text, i) => ({ kind: 'same', a: null, b: i + 1, text, source: after.sourceOf(i + 1) }));
  }
  const base = passes[entry.base];
  const before = new LineIndex(base.lines);
  return diffLines(splitLines(base.text), lines).map(line => ({
    ...line,
    source: line.b !== null ? after.sourceOf(line.b) : before.sourceOf(line.a!)
  }));
}

/** What a pass changed, in words. */
export function passSummary(passes: readonly IPass[], index: number): string {
  const entry = passes[index];
  if (entry.base === null) {
    return `${splitLines(entry.text).length} lines, first ${entry.dialect}`;
  }
  if (!entry.changed) {
    return 'unchanged';
  }
  const stats = diffStats(passLines(passes, index));
  return `−${stats.removed} +${stats.added} lines`;
}

/** The pass to show first: the first that changed the IR it was diffed against, else the first. */
export function defaultPass(passes: readonly IPass[]): number {
  const found = passes.findIndex(entry => entry.base !== null && entry.changed);
  return found >= 0 ? found : 0;
}

/** The timeline and the chosen pass's view. */
export class PassView {
  readonly node: HTMLElement;
  private readonly _buttons: HTMLButtonElement[] = [];
  private readonly _panel: HTMLDivElement;
  private _chosen = -1;
  private _lines: HTMLDivElement[] = [];
  private _selection: ReadonlySet<number> = new Set();

  constructor(readonly report: IReport) {
    const passes = report.passes;
    const slowest = Math.max(1e-9, ...passes.map(entry => entry.ms));
    const timeline = h('ol', { cls: 'klv-timeline', attrs: { role: 'tablist', 'aria-label': 'passes' } });
    passes.forEach((entry, index) => {
      const bar = h('span', { cls: 'klv-pbar' }, [h('span', { cls: 'klv-pbar-fill' })]);
      (bar.firstChild as HTMLElement).style.width = `${(100 * entry.ms) / slowest}%`;
      const button = h(
        'button',
        {
          cls: entry.changed ? ['klv-pass', 'klv-changed'] : ['klv-pass', 'klv-same'],
          attrs: { type: 'button', role: 'tab', 'data-pass': String(index), 'aria-selected': 'false' },
          title: `${entry.name} (${entry.dialect}): ${formatSeconds(entry.ms / 1e3)}`
        },
        [
          h('span', { cls: 'klv-pass-no', text: String(index) }),
          h('span', { cls: 'klv-pass-name', text: entry.name }),
          h('span', { cls: 'klv-pass-dialect', text: entry.dialect }),
          bar,
          h('span', { cls: 'klv-pass-ms', text: formatSeconds(entry.ms / 1e3) }),
          h('span', { cls: 'klv-pass-what', text: passSummary(passes, index) })
        ]
      );
      button.addEventListener('click', () => this.choose(index));
      this._buttons.push(button);
      timeline.appendChild(h('li', {}, [button]));
    });
    this._panel = h('div', { cls: 'klv-pass-panel' });
    const total = passes.reduce((sum, entry) => sum + entry.ms, 0);
    const changed = passes.filter(entry => entry.changed).length;
    this.node = h('section', { cls: 'klv-passes' }, [
      h('div', {
        cls: 'klv-figure-title',
        text: `passes: ${passes.length} steps, ${changed} changed the IR, ${formatSeconds(total / 1e3)}`
      }),
      timeline,
      this._panel
    ]);
    if (passes.length > 0) {
      this.choose(defaultPass(passes));
    }
  }

  /** The pass shown. */
  get chosen(): number {
    return this._chosen;
  }

  /** Show pass `index` diffed against its base. */
  choose(index: number): void {
    const passes = this.report.passes;
    if (index < 0 || index >= passes.length || index === this._chosen) {
      return;
    }
    this._chosen = index;
    this._buttons.forEach((button, i) => {
      button.classList.toggle('klv-active', i === index);
      button.setAttribute('aria-selected', String(i === index));
    });
    clear(this._panel);
    this._lines = [];
    this._panel.appendChild(this._title(index));
    const entry = passes[index];
    if (entry.base !== null && !entry.changed) {
      const base = passes[entry.base];
      this._panel.appendChild(
        h('div', { cls: 'klv-pass-note', text: `no change: the IR is the same as after pass ${entry.base} (${base.name})` })
      );
      return;
    }
    this._panel.appendChild(this._body(passLines(passes, index), index));
    this.highlight(this._selection);
  }

  /** Highlight the lines that came from these source lines. */
  highlight(selection: ReadonlySet<number>): void {
    this._selection = selection;
    for (const line of this._lines) {
      const source = Number(line.getAttribute('data-source'));
      line.classList.toggle('klv-hl', selection.has(source));
    }
  }

  private _title(index: number): HTMLElement {
    const entry = this.report.passes[index];
    const against = entry.base === null ? 'shown whole' : `against pass ${entry.base} (${this.report.passes[entry.base].name})`;
    return h('div', { cls: 'klv-pass-title' }, [
      h('span', { cls: 'klv-kernel', text: `${index} ${entry.name}` }),
      h('span', { cls: 'klv-pane-note', text: `${entry.dialect}, ${against}: ${passSummary(this.report.passes, index)}` })
    ]);
  }

  private _body(lines: IPassLine[], index: number): HTMLElement {
    const first = this.report.source.firstLine;
    const body = h('div', { cls: 'klv-scroll klv-difflines klv-lines', attrs: { 'data-pane': `pass:${index}` } });
    const node = (line: IPassLine): HTMLDivElement => {
      const marker = line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' ';
      const cls = ['klv-line', 'klv-dline', `klv-${line.kind}`];
      if (line.source !== undefined) {
        cls.push('klv-mapped', `klv-c${colourOf(line.source, first)}`);
      }
      const attrs: Record<string, string> = { 'data-line': String(line.b ?? line.a) };
      if (line.source !== undefined) {
        attrs['data-source'] = String(line.source);
      }
      const element = h('div', { cls, attrs }, [
        h('span', { cls: 'klv-no', text: String(line.b ?? line.a) }),
        h('span', { cls: 'klv-at', text: line.source === undefined ? '' : String(line.source) }),
        h('span', { cls: 'klv-marker', text: marker }),
        h('span', { cls: 'klv-text', text: line.text })
      ]);
      this._lines.push(element);
      return element;
    };
    const rows = lines.some(line => line.kind !== 'same') ? diffRows(lines) : lines.map(line => ({ kind: 'line' as const, line }));
    for (const row of rows) {
      if (row.kind === 'line') {
        body.appendChild(node(row.line as IPassLine));
        continue;
      }
      const start = lines.findIndex(line => line.kind === 'same' && line.a === row.a && line.b === row.b);
      const fold = h('button', { cls: 'klv-fold', text: `⋯ ${row.count} unchanged lines`, attrs: { type: 'button' } });
      fold.addEventListener('click', () => {
        lines.slice(start, start + row.count).forEach(line => body.insertBefore(node(line), fold));
        fold.remove();
        this.highlight(this._selection);
      });
      body.appendChild(fold);
    }
    return body;
  }
}
