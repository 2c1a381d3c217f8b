/**
 * Line maps: a stage's [stage_line, source_line] pairs in both directions, and the sets of
 * lines to highlight when the reader points at a line of any pane.
 *
 * The selection is always a set of *source* lines: pointing at a source line selects it;
 * pointing at a stage line selects the source line it came from. Every pane then highlights
 * the lines that came from a selected source line.
 */

import { IReport, IStage } from './report';

/** One stage's line map, read both ways. */
export class LineIndex {
  private readonly _toSource = new Map<number, number>();
  private readonly _toStage = new Map<number, number[]>();

  constructor(pairs: ReadonlyArray<readonly [number, number]>) {
    for (const [stageLine, sourceLine] of pairs) {
      // The schema allows each stage line once; should a writer repeat one, the first wins.
      if (this._toSource.has(stageLine)) {
        continue;
      }
      this._toSource.set(stageLine, sourceLine);
      const lines = this._toStage.get(sourceLine);
      if (lines) {
        lines.push(stageLine);
      } else {
        this._toStage.set(sourceLine, [stageLine]);
      }
    }
    for (const lines of this._toStage.values()) {
      lines.sort((x, y) => x - y);
    }
  }

  /** The source line a stage line came from (undefined: no location). */
  sourceOf(stageLine: number): number | undefined {
    return this._toSource.get(stageLine);
  }

  /** The stage lines that came from a source line, ascending. */
  stageLinesOf(sourceLine: number): readonly number[] {
    return this._toStage.get(sourceLine) ?? [];
  }

  /** Source lines that some stage line came from, ascending. */
  get sourceLines(): number[] {
    return [...this._toStage.keys()].sort((x, y) => x - y);
  }

  /** How many stage lines carry a location. */
  get size(): number {
    return this._toSource.size;
  }
}

/** `sourceLine -> stage lines` for a list of pairs (the inversion of a stage's map). */
export function invertLineMap(pairs: ReadonlyArray<readonly [number, number]>): Map<number, number[]> {
  const index = new LineIndex(pairs);
  return new Map(index.sourceLines.map(line => [line, [...index.stageLinesOf(line)]]));
}

/** Where the reader points: a source line, or a line of a named stage. */
export type LineRef =
  | { pane: 'source'; line: number; /** pointed at in a pass's IR */ fromPass?: boolean }
  | { pane: 'stage'; stage: string; line: number };

/** The line maps of every stage of a report, by stage name. */
export class ReportIndex {
  readonly stages = new Map<string, LineIndex>();

  constructor(readonly report: IReport) {
    for (const stage of report.stages) {
      this.stages.set(stage.name, new LineIndex(stage.lines));
    }
  }

  /** The source lines a pointed-at line selects (empty for a stage line with no location). */
  selectionOf(ref: LineRef): Set<number> {
    if (ref.pane === 'source') {
      return new Set([ref.line]);
    }
    const source = this.stages.get(ref.stage)?.sourceOf(ref.line);
    return source === undefined ? new Set() : new Set([source]);
  }

  /** The lines of one stage to highlight for a selection of source lines, ascending. */
  stageHighlight(stage: string, selection: ReadonlySet<number>): number[] {
    const index = this.stages.get(stage);
    if (!index) {
      return [];
    }
    const lines: number[] = [];
    for (const source of selection) {
      lines.push(...index.stageLinesOf(source));
    }
    return lines.sort((x, y) => x - y);
  }

  /** Every pane's lines to highlight: `source` -> source lines, and stage name -> stage lines. */
  highlights(selection: ReadonlySet<number>): Map<string, number[]> {
    const result = new Map<string, number[]>();
    result.set('source', [...selection].sort((x, y) => x - y));
    for (const stage of this.stages.keys()) {
      result.set(stage, this.stageHighlight(stage, selection));
    }
    return result;
  }
}

/** Colours per source line: lines of one source line share a colour in every pane. */
export const PALETTE_SIZE = 12;

export function colourOf(sourceLine: number, firstLine: number): number {
  const offset = sourceLine - firstLine;
  return ((offset % PALETTE_SIZE) + PALETTE_SIZE) % PALETTE_SIZE;
}

/** The stage to show first in a second pane: the last one that maps any line to the source. */
export function defaultStages(stages: readonly IStage[]): string[] {
  if (stages.length === 0) {
    return [];
  }
  const first = stages[0].name;
  const mapped = stages.filter(stage => stage.lines.length > 0 && stage.name !== first);
  const second = mapped.length > 0 ? mapped[mapped.length - 1].name : stages[stages.length - 1].name;
  return second === first ? [first] : [first, second];
}
