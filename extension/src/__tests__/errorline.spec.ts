import { EditorState } from '@codemirror/state';

import { compileErrorAt, documentLine, errorLineField, setErrorLine } from '../errorline';

const ERROR = {
  output_type: 'error',
  ename: 'CompilationError',
  evalue: "<tile_kernel-0123456789ab>:4:31: in add: arange's bounds must be tl.constexpr"
};

function markedLines(state: EditorState): number[] {
  const lines: number[] = [];
  state.field(errorLineField).between(0, state.doc.length, from => {
    lines.push(state.doc.lineAt(from).number);
  });
  return lines;
}

describe("a %%tile_kernel cell's compile error", () => {
  it('is found in the error outputs, with its cell line and column', () => {
    expect(compileErrorAt([{ output_type: 'stream' }, ERROR])).toEqual({ line: 4, column: 31 });
    expect(compileErrorAt([{ output_type: 'error', evalue: 'NameError: x' }])).toBeNull();
    expect(compileErrorAt([{ output_type: 'stream', evalue: ERROR.evalue }])).toBeNull();
  });

  it('counts cell lines from the magic line, after the blank lines IPython drops', () => {
    expect(documentLine('%%tile_kernel\na\nb\n', 3)).toBe(3);
    expect(documentLine('\n\n%%tile_kernel\na\nb\n', 3)).toBe(5);
  });

  it('marks one editor line, follows edits above it, and clears', () => {
    let state = EditorState.create({ doc: '%%tile_kernel\n@kl.jit\ndef add():\n    bad\n', extensions: [errorLineField] });
    state = state.update({ effects: setErrorLine.of({ line: 4, message: ERROR.evalue }) }).state;
    expect(markedLines(state)).toEqual([4]);
    state = state.update({ changes: { from: 0, insert: '\n' } }).state;
    expect(markedLines(state)).toEqual([5]);
    state = state.update({ effects: setErrorLine.of(null) }).state;
    expect(markedLines(state)).toEqual([]);
    state = state.update({ effects: setErrorLine.of({ line: 99, message: '' }) }).state;
    expect(markedLines(state)).toEqual([]);
  });
});
