/**
 * The A/B view of two configs of one kernel: a table of their figures side by side (run time
 * and rates, compile time per step, resources) with the change from A to B, then tabs for a
 * line diff of each stage, A's report and B's report.
 */

import { clear, h } from './dom';
import { diffLines, diffRows, diffStats, IDiffLine, pairStages } from './diff';
import { compileTime, formatSeconds, relativeChange, resourceFigures } from './figures';
import { ICompare, IReport, IRun, splitLines } from './report';
import { IViewOptions, ReportView } from './viewer';

/** A row of the comparison table: A's and B's values as text, and the change from A to B. */
export interface IRow {
  group: string;
  label: string;
  a: string;
  b: string;
  change: string;
  verdict: 'better' | 'worse' | 'same' | '';
}

type Better = 'lower' | 'higher' | 'none';

function numberRow(
  group: string,
  label: string,
  a: number | undefined,
  b: number | undefined,
  format: (value: number) => string,
  better: Better
): IRow {
  const text = (value: number | undefined) => (value === undefined ? '—' : format(value));
  if (a === undefined || b === undefined || better === 'none') {
    return { group, label, a: text(a), b: text(b), change: '', verdict: '' };
  }
  const improved = better === 'lower' ? b < a : b > a;
  const verdict = a === b ? 'same' : improved ? 'better' : 'worse';
  return { group, label, a: text(a), b: text(b), change: relativeChange(a, b), verdict };
}

function textRow(group: string, label: string, a: string, b: string): IRow {
  return { group, label, a: a || '—', b: b || '—', change: a === b ? '=' : '', verdict: '' };
}

function settingsText(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

const RATES = ['GB/s', 'TFLOP/s'];

function runRows(a: IRun, b: IRun): IRow[] {
  const rows = [textRow('run', 'config', settingsText(a.settings), settingsText(b.settings))];
  const ms = (run: IRun) => (run.numbers.ms === undefined ? undefined : run.numbers.ms / 1e3);
  if (ms(a) !== undefined || ms(b) !== undefined) {
    rows.push(numberRow('run', 'time', ms(a), ms(b), formatSeconds, 'lower'));
  }
  for (const rate of RATES) {
    if (a.numbers[rate] !== undefined || b.numbers[rate] !== undefined) {
      rows.push(numberRow('run', rate, a.numbers[rate], b.numbers[rate], value => value.toFixed(2), 'higher'));
    }
  }
  if (a.check !== null || b.check !== null) {
    rows.push(textRow('run', 'check', a.check ?? '', b.check ?? ''));
  }
  return rows;
}

function compileSeconds(report: IReport): Map<string, number> {
  const time = compileTime(report);
  const found = new Map<string, number>();
  time?.slices.forEach(slice => found.set(slice.name, slice.seconds));
  if (time) {
    found.set('total', time.total);
  }
  return found;
}

function compileRows(a: IReport, b: IReport): IRow[] {
  const secondsA = compileSeconds(a);
  const secondsB = compileSeconds(b);
  return pairStages([...secondsA.keys()], [...secondsB.keys()]).map(step =>
    numberRow('compile time', step, secondsA.get(step), secondsB.get(step), formatSeconds, 'lower')
  );
}

function resourceRows(a: IReport, b: IReport): IRow[] {
  const byLabel = (report: IReport) => new Map(resourceFigures(report).map(figure => [figure.label, figure]));
  const figuresA = byLabel(a);
  const figuresB = byLabel(b);
  return pairStages([...figuresA.keys()], [...figuresB.keys()]).map(label => {
    const figureA = figuresA.get(label);
    const figureB = figuresB.get(label);
    const format = (figureA ?? figureB)!.format;
    return numberRow('resources', label, figureA?.value, figureB?.value, format, 'lower');
  });
}

/** The rows of the comparison table, grouped: run, compile time, resources. */
export function comparisonRows(compare: ICompare): IRow[] {
  const { a, b } = compare;
  return [...runRows(a.run, b.run), ...compileRows(a.report, b.report), ...resourceRows(a.report, b.report)];
}

function tableNode(compare: ICompare): HTMLTableElement {
  const head = h('thead', {}, [
    h('tr', {}, [
      h('th', { text: '' }),
      h('th', { text: compare.a.label }),
      h('th', { text: compare.b.label }),
      h('th', { text: `${compare.b.label} vs ${compare.a.label}` })
    ])
  ]);
  const body = h('tbody');
  let group = '';
  for (const row of comparisonRows(compare)) {
    if (row.group !== group) {
      group = row.group;
      body.appendChild(h('tr', { cls: 'klv-group' }, [h('th', { text: group, attrs: { 'data-group': group } })]));
    }
    body.appendChild(
      h('tr', {}, [
        h('th', { text: row.label }),
        h('td', { text: row.a }),
        h('td', { text: row.b }),
        h('td', { cls: row.verdict ? ['klv-change', `klv-${row.verdict}`] : 'klv-change', text: row.change })
      ])
    );
  }
  return h('table', { cls: 'klv-abtable' }, [head, body]);
}

function diffLineNode(line: IDiffLine): HTMLDivElement {
  const marker = line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' ';
  return h('div', { cls: ['klv-dline', `klv-${line.kind}`] }, [
    h('span', { cls: 'klv-no', text: line.a === null ? '' : String(line.a) }),
    h('span', { cls: 'klv-no', text: line.b === null ? '' : String(line.b) }),
    h('span', { cls: 'klv-marker', text: marker }),
    h('span', { cls: 'klv-text', text: line.text })
  ]);
}

/** The diff of one stage between A and B: changed runs with context, the rest folded. */
export function stageDiffNode(name: string, a: IReport, b: IReport): HTMLElement {
  const textOf = (report: IReport) => report.stages.find(stage => stage.name === name)?.text;
  const textA = textOf(a);
  const textB = textOf(b);
  if (textA === undefined || textB === undefined) {
    const has = textA === undefined ? 'B' : 'A';
    return h('div', { cls: 'klv-diff', text: `only ${has} has a ${name} stage` });
  }
  const lines = diffLines(splitLines(textA), splitLines(textB));
  const stats = diffStats(lines);
  const body = h('div', { cls: 'klv-scroll klv-difflines', attrs: { 'data-stage': name } });
  for (const row of diffRows(lines)) {
    if (row.kind === 'line') {
      body.appendChild(diffLineNode(row.line));
      continue;
    }
    const fold = h('button', {
      cls: 'klv-fold',
      text: `⋯ ${row.count} unchanged lines`,
      attrs: { type: 'button' }
    });
    const start = lines.findIndex(line => line.a === row.a && line.kind === 'same');
    fold.addEventListener('click', () => {
      const hidden = lines.slice(start, start + row.count).map(diffLineNode);
      hidden.forEach(node => body.insertBefore(node, fold));
      fold.remove();
    });
    body.appendChild(fold);
  }
  const summary =
    stats.added + stats.removed === 0
      ? `${name}: identical (${stats.same} lines)`
      : `${name}: −${stats.removed} +${stats.added} lines (${stats.same} unchanged)`;
  return h('div', { cls: 'klv-diff' }, [h('div', { cls: 'klv-diff-summary', text: summary }), body]);
}

interface ITab {
  key: string;
  label: string;
  build: () => HTMLElement;
}

/** Tabs over panels, each built on first show. */
function tabbed(cls: string, entries: ITab[]): HTMLElement {
  const tabs = h('div', { cls: 'klv-tabs', attrs: { role: 'tablist' } });
  const panel = h('div', { cls: 'klv-panel' });
  const built = new Map<string, HTMLElement>();
  const select = (entry: ITab) => {
    for (const tab of Array.from(tabs.children)) {
      const active = tab.getAttribute('data-tab') === entry.key;
      tab.classList.toggle('klv-active', active);
      tab.setAttribute('aria-selected', String(active));
    }
    if (!built.has(entry.key)) {
      built.set(entry.key, entry.build());
    }
    clear(panel);
    panel.appendChild(built.get(entry.key)!);
  };
  for (const entry of entries) {
    const tab = h('button', {
      cls: 'klv-tab',
      text: entry.label,
      attrs: { type: 'button', role: 'tab', 'data-tab': entry.key, 'aria-selected': 'false' }
    });
    tab.addEventListener('click', () => select(entry));
    tabs.appendChild(tab);
  }
  if (entries.length > 0) {
    select(entries[0]);
  }
  return h('div', { cls }, [tabs, panel]);
}

/** The A/B view. */
export class CompareView {
  readonly node: HTMLDivElement;

  constructor(readonly compare: ICompare, options: IViewOptions = {}) {
    const { a, b } = compare;
    const stages = pairStages(
      a.report.stages.map(stage => stage.name),
      b.report.stages.map(stage => stage.name)
    );
    const diffs = tabbed(
      'klv-diffs',
      stages.map(name => ({ key: `stage:${name}`, label: name, build: () => stageDiffNode(name, a.report, b.report) }))
    );
    const views = tabbed('klv-sides', [
      { key: 'diff', label: 'stage diffs', build: () => diffs },
      { key: 'a', label: `${a.label} report`, build: () => new ReportView(a.report, options).node },
      { key: 'b', label: `${b.label} report`, build: () => new ReportView(b.report, options).node }
    ]);
    const title = a.report.kernel === b.report.kernel ? a.report.kernel : `${a.report.kernel} / ${b.report.kernel}`;
    this.node = h('div', { cls: 'klv-report klv-compare' }, [
      h('div', { cls: 'klv-chips' }, [
        h('span', { cls: 'klv-kernel', text: title }),
        h('span', { cls: 'klv-chip', text: `${a.label} vs ${b.label}` }),
        h('span', { cls: 'klv-chip', text: a.report.target === b.report.target ? a.report.target : `${a.report.target} / ${b.report.target}` })
      ]),
      tableNode(compare),
      views
    ]);
  }
}
