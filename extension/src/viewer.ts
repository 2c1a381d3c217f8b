/**
 * The compile-report viewer: a header with the kernel's facts, the compile-time breakdown and
 * resource figures, diagnostics, then the source beside one or two stage panes (each with stage
 * tabs), then the pass timeline (passes.ts). Pointing at a line highlights its counterparts in
 * every pane and in the chosen pass; clicking pins the highlight and scrolls the other panes to it.
 */

import { h } from './dom';
import { compileTime, constexprFacts, formatSeconds, resourceFigures, runFacts } from './figures';
import { defaultStages, LineRef, ReportIndex } from './linemap';
import { FilterBar, heightHandle, paneSplitter, toggleButton } from './layout';
import { CodePane, LineBlock, MAX_LINES, sourceBlock, stageBlock } from './pane';
import { PassView } from './passes';
import { IReport, splitLines } from './report';

export interface IViewOptions {
  /** Lines rendered per pane. */
  maxLines?: number;
}

/** A chip: a short fact in the header. */
function chip(text: string, title?: string): HTMLSpanElement {
  return h('span', { cls: 'klv-chip', text, title });
}

/** The compile-time bar: one slice per step, a legend with each step's time. */
export function compileTimeNode(report: IReport): HTMLElement | null {
  const time = compileTime(report);
  if (!time) {
    return null;
  }
  const bar = h('div', { cls: 'klv-bar', attrs: { role: 'img', 'aria-label': 'compile time per step' } });
  const legend = h('ul', { cls: 'klv-legend' });
  time.slices.forEach((slice, i) => {
    const label = `${slice.name} ${formatSeconds(slice.seconds)}`;
    const part = h('span', { cls: ['klv-slice', `klv-t${i % 8}`], title: label });
    part.style.width = `${Math.max(0, Math.min(100, slice.share * 100))}%`;
    bar.appendChild(part);
    legend.appendChild(h('li', {}, [h('span', { cls: ['klv-swatch', `klv-t${i % 8}`] }), h('span', { text: label })]));
  });
  return h('div', { cls: 'klv-time' }, [
    h('div', { cls: 'klv-figure-title', text: `compile ${formatSeconds(time.total)}` }),
    bar,
    legend
  ]);
}

/** Run facts (time, GB/s, check) and resource figures as a list of label/value pairs. */
export function figuresNode(report: IReport): HTMLElement | null {
  const items: Array<[string, string]> = [
    ...runFacts(report),
    ...resourceFigures(report).map((figure): [string, string] => [figure.label, figure.text])
  ];
  if (items.length === 0) {
    return null;
  }
  return h(
    'div',
    { cls: 'klv-figures' },
    items.map(([label, value]) =>
      h('div', { cls: 'klv-figure' }, [
        h('span', { cls: 'klv-figure-label', text: label }),
        h('span', { cls: 'klv-figure-value', text: value })
      ])
    )
  );
}

function diagnosticsNode(report: IReport): HTMLElement | null {
  if (report.diagnostics.length === 0) {
    return null;
  }
  return h(
    'ul',
    { cls: 'klv-notes' },
    report.diagnostics.map(note =>
      h('li', { cls: `klv-${note.severity}` }, [
        h('span', { cls: 'klv-severity', text: note.severity }),
        h('span', { text: note.stage ? `${note.stage}: ${note.message}` : note.message })
      ])
    )
  );
}

function optionsNode(report: IReport): HTMLElement | null {
  const entries = Object.entries(report.options).filter(([, value]) => value !== null && value !== '');
  if (entries.length === 0) {
    return null;
  }
  const summary = h('summary', { text: `options (${entries.length})` });
  const list = h(
    'ul',
    { cls: 'klv-options' },
    entries.map(([key, value]) => h('li', { text: `${key} = ${JSON.stringify(value)}` }))
  );
  return h('details', { cls: 'klv-options-box' }, [summary, list]);
}

function sameLines(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every(line => b.has(line));
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** A stage pane: tabs (one per stage) and the assembly filters over a CodePane. */
class StagePane {
  readonly pane = new CodePane('klv-stage');
  private readonly _tabs: HTMLDivElement;
  private readonly _filters = new FilterBar(this.pane.node);
  private _stage = '';

  constructor(
    private readonly _report: IReport,
    private readonly _names: readonly string[],
    private readonly _blockOf: (name: string) => LineBlock,
    private readonly _onSwitch: () => void
  ) {
    this._tabs = h('div', { cls: 'klv-tabs', attrs: { role: 'tablist' } });
    for (const name of _names) {
      const tab = h('button', {
        cls: 'klv-tab',
        text: name,
        attrs: { type: 'button', role: 'tab', 'data-stage': name, 'aria-selected': 'false' }
      });
      tab.addEventListener('click', () => this.select(name));
      this._tabs.appendChild(tab);
    }
    this.pane.header.appendChild(this._tabs);
    this.pane.header.appendChild(this._filters.node);
  }

  get stage(): string {
    return this._stage;
  }

  select(name: string): void {
    if (!this._names.includes(name) || name === this._stage) {
      return;
    }
    this._stage = name;
    for (const tab of Array.from(this._tabs.children)) {
      const active = tab.getAttribute('data-stage') === name;
      tab.classList.toggle('klv-active', active);
      tab.setAttribute('aria-selected', String(active));
    }
    this.pane.show(this._blockOf(name));
    this._filters.show(this._report.stages.find(stage => stage.name === name)!);
    this._onSwitch();
  }
}

/** The viewer of one compile report. */
export class ReportView {
  readonly node: HTMLDivElement;
  readonly index: ReportIndex;
  private readonly _source = new CodePane('klv-source');
  private readonly _stagePanes: StagePane[] = [];
  private readonly _panes: HTMLDivElement;
  /** The pass timeline (null for a report without passes). */
  readonly passes: PassView | null;
  private readonly _maxLines: number;
  private _pinned = new Set<number>();
  private _hovered: Set<number> | null = null;

  constructor(readonly report: IReport, options: IViewOptions = {}) {
    this._maxLines = options.maxLines ?? MAX_LINES;
    this.index = new ReportIndex(report);
    const mapped = new Set<number>();
    for (const index of this.index.stages.values()) {
      index.sourceLines.forEach(line => mapped.add(line));
    }
    this._source.show(sourceBlock(report, mapped, this._maxLines));
    this._source.header.appendChild(h('span', { cls: 'klv-pane-title', text: 'source' }));
    this._source.header.appendChild(h('span', { cls: 'klv-pane-note', text: this._sourceNote(), title: report.source.file }));
    this._panes = h('div', { cls: 'klv-panes' }, [this._source.node]);
    for (const name of defaultStages(report.stages)) {
      this._addStagePane(name);
    }
    this.passes = report.passes.length > 0 ? new PassView(report) : null;
    this.node = h('div', { cls: 'klv-report', attrs: { 'data-kernel': report.kernel } });
    this.node.append(
      ...[
        this._header(),
        diagnosticsNode(report),
        this._panes,
        heightHandle(this.node, () => this._panes.querySelector('.klv-stage .klv-scroll')),
        this.passes?.node
      ].filter((part): part is HTMLElement => !!part)
    );
    for (const area of [this._panes, this.passes?.node]) {
      area?.addEventListener('mouseover', event => this._onPoint(event));
      area?.addEventListener('mouseleave', () => this._setHovered(null));
      area?.addEventListener('click', event => this._onClick(event));
    }
  }

  /** The stage shown in each stage pane, left to right. */
  get shownStages(): string[] {
    return this._stagePanes.map(pane => pane.stage);
  }

  /** Show `stage` in stage pane `pane` (0 or 1). */
  selectStage(pane: number, stage: string): void {
    this._stagePanes[pane]?.select(stage);
  }

  /** Select source lines as if the reader had clicked (an empty set clears). */
  pin(selection: ReadonlySet<number>): void {
    this._pinned = new Set(selection);
    this._apply();
  }

  /** The source lines currently highlighted. */
  get selection(): ReadonlySet<number> {
    return this._hovered ?? this._pinned;
  }

  private _sourceNote(): string {
    const source = this.report.source;
    const count = Math.max(1, splitLines(source.text).length);
    const where = !source.file || source.file.startsWith('<tile_kernel') ? 'cell lines ' : `${baseName(source.file)}:`;
    return `${where}${source.firstLine}–${source.firstLine + count - 1}`;
  }

  private _header(): HTMLElement {
    const report = this.report;
    const chips = h('div', { cls: 'klv-chips' }, [
      h('span', { cls: 'klv-kernel', text: report.kernel }),
      chip(report.target, 'target'),
      ...constexprFacts(report).map(fact => chip(fact, 'constexpr')),
      chip(`${report.stages.length} stages`, report.stages.map(stage => stage.name).join(', ')),
      this._splitToggle(),
      toggleButton('full width', false, on => this.node.classList.toggle('klv-wide', on),
        'one pane per row, each as wide as the output'),
      toggleButton('wrap lines', false, on => this.node.classList.toggle('klv-wrap', on),
        'wrap long lines instead of scrolling sideways')
    ]);
    const figures = h('div', { cls: 'klv-figure-row' }, [compileTimeNode(report), figuresNode(report)]);
    return h('div', { cls: 'klv-head' }, [chips, figures, optionsNode(report)]);
  }

  /** A button that shows or hides the second stage pane (none when there is one). */
  private _splitToggle(): HTMLButtonElement | null {
    if (this._stagePanes.length < 2) {
      return null;
    }
    const button = h('button', {
      cls: 'klv-split',
      text: 'one stage pane',
      attrs: { type: 'button', 'aria-pressed': 'false' }
    });
    button.addEventListener('click', () => {
      const single = this._panes.classList.toggle('klv-single');
      button.textContent = single ? 'two stage panes' : 'one stage pane';
      button.setAttribute('aria-pressed', String(single));
    });
    return button;
  }

  private _addStagePane(initial: string): void {
    const names = this.report.stages.map(stage => stage.name);
    // Each pane builds its own blocks (an element sits in one pane only), when first shown.
    const blocks = new Map<string, LineBlock>();
    const blockOf = (name: string) => {
      let block = blocks.get(name);
      if (!block) {
        const stage = this.report.stages.find(candidate => candidate.name === name)!;
        block = stageBlock(this.report, stage, this.index.stages.get(name)!, this._maxLines);
        blocks.set(name, block);
      }
      return block;
    };
    const pane = new StagePane(this.report, names, blockOf, () => this._apply());
    const left = this._panes.lastElementChild as HTMLElement;
    this._stagePanes.push(pane);
    this._panes.appendChild(paneSplitter(this._panes, left, pane.pane.node));
    this._panes.appendChild(pane.pane.node);
    pane.select(initial);
  }

  private _refOf(event: Event): LineRef | null {
    const line = (event.target as HTMLElement | null)?.closest?.('.klv-line');
    const block = line?.closest('.klv-lines');
    if (!line || !block) {
      return null;
    }
    const number = Number(line.getAttribute('data-line'));
    const pane = block.getAttribute('data-pane') ?? '';
    if (pane.startsWith('pass:')) {
      // A pass's line names its source line itself (its pass is not a stage of the index).
      const source = line.getAttribute('data-source');
      return source === null ? null : { pane: 'source', line: Number(source), fromPass: true };
    }
    return pane === 'source' && block.closest('.klv-source')
      ? { pane: 'source', line: number }
      : { pane: 'stage', stage: pane, line: number };
  }

  private _onPoint(event: Event): void {
    const ref = this._refOf(event);
    if (ref) {
      this._setHovered(this.index.selectionOf(ref));
    }
  }

  private _onClick(event: Event): void {
    const ref = this._refOf(event);
    if (!ref) {
      return;
    }
    const selection = this.index.selectionOf(ref);
    const same = sameLines(selection, this._pinned);
    this._pinned = same ? new Set() : selection;
    this._apply();
    if (!same) {
      this._revealExcept(ref);
    }
  }

  private _setHovered(selection: Set<number> | null): void {
    if (this._hovered === selection || (this._hovered && selection && sameLines(this._hovered, selection))) {
      return; // moving within one line (its spans) changes nothing
    }
    this._hovered = selection;
    this._apply();
  }

  private _apply(): void {
    const highlights = this.index.highlights(this.selection);
    this._source.highlight(highlights.get('source') ?? []);
    for (const pane of this._stagePanes) {
      pane.pane.highlight(highlights.get(pane.stage) ?? []);
    }
    this.passes?.highlight(this.selection);
  }

  private _revealExcept(ref: LineRef): void {
    const highlights = this.index.highlights(this._pinned);
    if (ref.pane !== 'source' || ref.fromPass) {
      this._source.reveal(highlights.get('source') ?? []);
    }
    for (const pane of this._stagePanes) {
      if (ref.pane === 'stage' && ref.stage === pane.stage) {
        continue;
      }
      pane.pane.reveal(highlights.get(pane.stage) ?? []);
    }
  }
}
