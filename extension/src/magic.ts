/**
 * `%%tile_kernel` cells as Python in the editor (CodeMirror 6). The cell language is Python's
 * own parser reading the cell with its magic line blanked out (so the Python below it parses
 * cleanly: no error nodes, folding and indentation intact), plus a decoration that colours the
 * magic line itself: the magic's name and its `--options`.
 */

import { Language, LanguageSupport } from '@codemirror/language';
import { RangeSetBuilder } from '@codemirror/state';
import { Decoration, DecorationSet, EditorView, ViewPlugin, ViewUpdate } from '@codemirror/view';
import { Input, Parser, PartialParse, TreeFragment } from '@lezer/common';

export const TILE_KERNEL_MAGIC = '%%tile_kernel';
export const TILE_KERNEL_MIME = 'text/x-kernellab-tile-kernel';
export const TILE_KERNEL_LANGUAGE = 'kernellab-tile-kernel';

/** How far into a cell the magic line is looked for. */
const HEAD = 4096;

/** The range of the cell's `%%tile_kernel` line ([from, to), without its line break), if any. */
export function magicLine(text: string): { from: number; to: number } | null {
  // IPython drops blank lines before a cell magic; the magic's name ends at a space or the line's end.
  const match = /^((?:[ \t]*\r?\n)*)(%%tile_kernel(?=[ \t\r\n]|$)[^\r\n]*)/.exec(text);
  if (!match) {
    return null;
  }
  const from = match[1].length;
  return { from, to: from + match[2].length };
}

/** Whether a cell's source starts with `%%tile_kernel`. */
export function isTileKernelCell(source: string): boolean {
  return magicLine(source.slice(0, HEAD)) !== null;
}

/** The mimetype a code cell should have: ours for `%%tile_kernel` cells, else the notebook's. */
export function wantedMimeType(source: string, current: string, notebookMimeType: string): string {
  if (isTileKernelCell(source)) {
    return TILE_KERNEL_MIME;
  }
  return current === TILE_KERNEL_MIME ? notebookMimeType : current;
}

/** Parts of the magic line to colour: the magic, and each `--option`. */
export function magicTokens(line: string): Array<{ from: number; to: number; kind: 'magic' | 'option' }> {
  const at = line.indexOf(TILE_KERNEL_MAGIC);
  if (at < 0) {
    return [];
  }
  const tokens: Array<{ from: number; to: number; kind: 'magic' | 'option' }> = [
    { from: at, to: at + TILE_KERNEL_MAGIC.length, kind: 'magic' }
  ];
  const option = /(^|\s)(--?[A-Za-z][\w-]*)/g;
  option.lastIndex = at + TILE_KERNEL_MAGIC.length;
  for (let found = option.exec(line); found; found = option.exec(line)) {
    const from = found.index + found[1].length;
    tokens.push({ from, to: from + found[2].length, kind: 'option' });
  }
  return tokens;
}

/** The document with the characters in [from, to) read as spaces. */
class BlankedInput implements Input {
  constructor(private readonly _inner: Input, private readonly _from: number, private readonly _to: number) {}

  get length(): number {
    return this._inner.length;
  }

  get lineChunks(): boolean {
    return this._inner.lineChunks;
  }

  chunk(from: number): string {
    return this._blank(this._inner.chunk(from), from);
  }

  read(from: number, to: number): string {
    return this._blank(this._inner.read(from, to), from);
  }

  private _blank(text: string, at: number): string {
    const start = Math.max(this._from, at);
    const end = Math.min(this._to, at + text.length);
    if (start >= end) {
      return text;
    }
    return text.slice(0, start - at) + ' '.repeat(end - start) + text.slice(end - at);
  }
}

/** A parser that hands the inner (Python) parser the cell with its magic line blanked. */
export class CellMagicParser extends Parser {
  constructor(readonly inner: Parser) {
    super();
  }

  createParse(
    input: Input,
    fragments: readonly TreeFragment[],
    ranges: readonly { from: number; to: number }[]
  ): PartialParse {
    const line = magicLine(input.read(0, Math.min(input.length, HEAD)));
    const source = line ? new BlankedInput(input, line.from, line.to) : input;
    return this.inner.createParse(source, fragments, ranges);
  }
}

const magicMark = Decoration.mark({ class: 'cm-kernellab-magic' });
const optionMark = Decoration.mark({ class: 'cm-kernellab-magic-option' });

function magicDecorations(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const doc = view.state.doc;
  const head = doc.sliceString(0, Math.min(doc.length, HEAD));
  const line = magicLine(head);
  if (line) {
    for (const token of magicTokens(head.slice(line.from, line.to))) {
      builder.add(line.from + token.from, line.from + token.to, token.kind === 'magic' ? magicMark : optionMark);
    }
  }
  return builder.finish();
}

/** Colours the magic line. */
export const magicLineHighlight = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;

    constructor(view: EditorView) {
      this.decorations = magicDecorations(view);
    }

    update(update: ViewUpdate): void {
      if (update.docChanged) {
        this.decorations = magicDecorations(update.view);
      }
    }
  },
  { decorations: plugin => plugin.decorations }
);

/** The `%%tile_kernel` cell language built on a Python LanguageSupport. */
export function tileKernelSupport(python: LanguageSupport): LanguageSupport {
  const language = new Language(
    python.language.data,
    new CellMagicParser(python.language.parser),
    [],
    TILE_KERNEL_LANGUAGE
  );
  return new LanguageSupport(language, [python.support, magicLineHighlight]);
}
