/**
 * A code pane: numbered lines of one text (the source, or a stage chosen with tabs), coloured
 * by the source line they came from, with highlighted lines and a strip of marks that shows
 * where the highlighted lines are in the whole text.
 */

import { h, clear } from './dom';
import { colourOf, LineIndex } from './linemap';
import { FILTER_KINDS, IReport, IStage, splitLines } from './report';

/** Lines rendered per pane; the rest are counted, not shown. */
export const MAX_LINES = 20000;

/** A run of at least this many lines that came from no source line is folded away. */
export const FOLD_LINES = 24;

/**
 * Runs [start, end) of consecutive indices whose line is unmapped, at least `minimum` such lines
 * long. Hidden lines (the assembly filters') neither end a run nor count toward its length.
 */
export function unmappedRuns(
  mapped: readonly boolean[],
  minimum: number,
  hidden: readonly boolean[] = []
): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = -1;
  let last = -1;
  let count = 0;
  const close = () => {
    if (start >= 0 && count >= minimum) {
      runs.push([start, last + 1]);
    }
    start = -1;
    count = 0;
  };
  for (let i = 0; i < mapped.length; i++) {
    if (hidden[i]) {
      continue;
    }
    if (mapped[i]) {
      close();
      continue;
    }
    start = start < 0 ? i : start;
    last = i;
    count++;
  }
  close();
  return runs;
}

/** The lines of one text, built once. */
export class LineBlock {
  readonly node: HTMLDivElement;
  /** Line elements by line number minus `firstLine`. */
  readonly lines: HTMLDivElement[] = [];
  readonly total: number;

  constructor(
    readonly pane: string,
    text: string,
    readonly firstLine: number,
    colourFor: (line: number) => number | undefined,
    gutterFor: ((line: number) => number | undefined) | null,
    maxLines: number,
    kindOf: (line: number) => string | undefined = () => undefined
  ) {
    const all = splitLines(text);
    this.total = all.length;
    this.node = h('div', { cls: 'klv-lines', attrs: { 'data-pane': pane } });
    const shown = all.slice(0, maxLines);
    const mapped: boolean[] = [];
    const hidden: boolean[] = [];
    shown.forEach((content, i) => {
      const number = firstLine + i;
      const colour = colourFor(number);
      const at = gutterFor ? gutterFor(number) : undefined;
      const kind = kindOf(number);
      mapped.push(colour !== undefined);
      hidden.push(kind !== undefined);
      const cls = colour === undefined ? ['klv-line'] : ['klv-line', 'klv-mapped', `klv-c${colour}`];
      this.lines.push(
        h(
          'div',
          {
            cls: kind === undefined ? cls : [...cls, `klv-f-${kind}`],
            attrs: { 'data-line': String(number) }
          },
          [
            h('span', { cls: 'klv-no', text: String(number) }),
            gutterFor ? h('span', { cls: 'klv-at', text: at === undefined ? '' : String(at) }) : null,
            h('span', { cls: 'klv-text', text: content })
          ]
        )
      );
    });
    // Stages fold long runs of lines with no source line (constant pools, directives); the
    // source never does.
    const runs = gutterFor ? unmappedRuns(mapped, FOLD_LINES, hidden) : [];
    let next = 0;
    for (const [start, end] of runs) {
      this.lines.slice(next, start).forEach(line => this.node.appendChild(line));
      this.node.appendChild(this._fold(start, end, hidden.slice(start, end).filter(h => !h).length));
      next = end;
    }
    this.lines.slice(next).forEach(line => this.node.appendChild(line));
    if (all.length > shown.length) {
      this.node.appendChild(
        h('div', { cls: 'klv-more', text: `… ${all.length - shown.length} more lines not shown` })
      );
    }
  }

  line(number: number): HTMLDivElement | undefined {
    return this.lines[number - this.firstLine];
  }

  /** Lines [start, end) behind a button that unfolds them (`shown` of them not filtered). */
  private _fold(start: number, end: number, shown: number): HTMLElement {
    const first = this.firstLine + start;
    const last = this.firstLine + end - 1;
    const hidden = h('div', { cls: 'klv-folded' }, this.lines.slice(start, end));
    const button = h('button', {
      cls: 'klv-unfold',
      text: `⋯ ${shown} lines with no source line (${first}–${last})`,
      attrs: { type: 'button' }
    });
    const fold = h('div', { cls: 'klv-fold-run' }, [button, hidden]);
    button.addEventListener('click', () => {
      fold.replaceWith(...this.lines.slice(start, end));
    });
    return fold;
  }
}

/** A pane: a title (or tabs), a scrolling body holding one LineBlock, and a mark strip. */
export class CodePane {
  readonly node: HTMLElement;
  readonly header: HTMLDivElement;
  private readonly _scroller: HTMLDivElement;
  private readonly _marks: HTMLDivElement;
  private _block: LineBlock | null = null;
  private _lit: HTMLElement[] = [];

  constructor(cls: string) {
    this.header = h('div', { cls: 'klv-pane-head' });
    this._scroller = h('div', { cls: 'klv-scroll' });
    this._marks = h('div', { cls: 'klv-marks', attrs: { 'aria-hidden': 'true' } });
    this.node = h('section', { cls: ['klv-pane', cls] }, [
      this.header,
      h('div', { cls: 'klv-body' }, [this._scroller, this._marks])
    ]);
    this._marks.addEventListener('click', event => this._onMarkClick(event));
  }

  get block(): LineBlock | null {
    return this._block;
  }

  show(block: LineBlock): void {
    this.highlight([]);
    clear(this._scroller);
    this._scroller.appendChild(block.node);
    this._block = block;
  }

  /** Highlight these lines (line numbers of the shown block) and mark them on the strip. */
  highlight(lines: readonly number[]): void {
    for (const element of this._lit) {
      element.classList.remove('klv-hl');
    }
    this._lit = [];
    clear(this._marks);
    const block = this._block;
    if (!block) {
      return;
    }
    for (const number of lines) {
      const element = block.line(number);
      if (!element) {
        continue;
      }
      element.classList.add('klv-hl');
      this._lit.push(element);
    }
    this._drawMarks(lines, block);
  }

  /** Scroll the pane (not the page) so that the first of these lines is in view. */
  reveal(lines: readonly number[]): void {
    const element = lines.length > 0 ? this._block?.line(lines[0]) : undefined;
    if (!element) {
      return;
    }
    const top = element.offsetTop - this._scroller.offsetTop;
    const bottom = top + element.offsetHeight;
    const view = this._scroller;
    if (top < view.scrollTop || bottom > view.scrollTop + view.clientHeight) {
      view.scrollTop = Math.max(0, top - view.clientHeight / 3);
    }
  }

  private _drawMarks(lines: readonly number[], block: LineBlock): void {
    const shown = block.lines.length;
    if (shown === 0) {
      return;
    }
    for (const number of lines) {
      const offset = number - block.firstLine;
      if (offset < 0 || offset >= shown) {
        continue;
      }
      const mark = h('span', { cls: 'klv-mark', attrs: { 'data-line': String(number) } });
      mark.style.top = `${(100 * offset) / shown}%`;
      this._marks.appendChild(mark);
    }
  }

  private _onMarkClick(event: MouseEvent): void {
    const mark = (event.target as HTMLElement).closest('.klv-mark');
    const line = mark ? Number(mark.getAttribute('data-line')) : NaN;
    if (!isNaN(line)) {
      this.reveal([line]);
    }
  }
}

/** The source's block: lines coloured when some stage maps to them. */
export function sourceBlock(report: IReport, mapped: ReadonlySet<number>, maxLines = MAX_LINES): LineBlock {
  const first = report.source.firstLine;
  return new LineBlock(
    'source',
    report.source.text,
    first,
    line => (mapped.has(line) ? colourOf(line, first) : undefined),
    null,
    maxLines
  );
}

/** A stage's block: lines coloured by their source line, whose number shows in a gutter. */
export function stageBlock(report: IReport, stage: IStage, index: LineIndex, maxLines = MAX_LINES): LineBlock {
  const first = report.source.firstLine;
  const colour = (line: number) => {
    const source = index.sourceOf(line);
    return source === undefined ? undefined : colourOf(source, first);
  };
  const kinds = new Map<number, string>();
  for (const kind of FILTER_KINDS) {
    (stage.filters[kind] ?? []).forEach(line => kinds.set(line, kind));
  }
  return new LineBlock(stage.name, stage.text, 1, colour, line => index.sourceOf(line), maxLines, line =>
    kinds.get(line)
  );
}
