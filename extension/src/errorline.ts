/**
 * The line of a `%%tile_kernel` cell that a compile error points at, marked in the cell's editor.
 * The kernel raises `CompilationError` whose message starts `<tile_kernel-HASH>:LINE:COL:`,
 * LINE counted from the magic's line (1); the mark follows edits and goes when the cell's outputs
 * no longer hold such an error (a new run).
 */

import { StateEffect, StateField } from '@codemirror/state';
import { Decoration, DecorationSet, EditorView } from '@codemirror/view';

import { magicLine } from './magic';

/** An error output as nbformat stores it (the fields read here). */
export interface IErrorOutput {
  output_type?: string;
  ename?: string;
  evalue?: string;
}

const CELL_LOCATION = /^<tile_kernel-[0-9a-f]+>:(\d+):(\d+):/;

/** The cell line (1 = the magic's line) and column of the first compile error among outputs. */
export function compileErrorAt(outputs: readonly IErrorOutput[]): { line: number; column: number } | null {
  for (const output of outputs) {
    const found = output.output_type === 'error' ? CELL_LOCATION.exec(output.evalue ?? '') : null;
    if (found) {
      return { line: Number(found[1]), column: Number(found[2]) };
    }
  }
  return null;
}

/** The editor's document line of a cell line (IPython drops blank lines before a cell magic). */
export function documentLine(source: string, cellLine: number): number {
  const magic = magicLine(source);
  const before = magic ? source.slice(0, magic.from).split('\n').length - 1 : 0;
  return before + cellLine;
}

/** Mark a document line (1-based) as the compile error's, or clear the mark (null). */
export const setErrorLine = StateEffect.define<{ line: number; message: string } | null>();

const errorLineMark = (message: string) =>
  Decoration.line({ class: 'cm-kernellab-error-line', attributes: { title: message } });

/** The marked line: mapped through edits, replaced or cleared by setErrorLine. */
export const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    let next = marks.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(setErrorLine)) {
        continue;
      }
      const doc = transaction.state.doc;
      const wanted = effect.value;
      next =
        wanted === null || wanted.line < 1 || wanted.line > doc.lines
          ? Decoration.none
          : Decoration.set([errorLineMark(wanted.message).range(doc.line(wanted.line).from)]);
    }
    return next;
  },
  provide: field => EditorView.decorations.from(field)
});
