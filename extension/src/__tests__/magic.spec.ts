import { pythonLanguage } from '@codemirror/lang-python';

import { CellMagicParser, isTileKernelCell, magicLine, magicTokens, TILE_KERNEL_MIME, wantedMimeType } from '../magic';

const CELL = '%%tile_kernel --target cpu --signature "x=*fp32"\n@kl.jit\ndef f(x, BLOCK: tl.constexpr):\n    return x + 1\n';

function errorNodes(tree: { iterate: (spec: { enter: (node: { type: { isError: boolean } }) => void }) => void }): number {
  let errors = 0;
  tree.iterate({
    enter: node => {
      if (node.type.isError) {
        errors++;
      }
    }
  });
  return errors;
}

describe('the %%tile_kernel magic line', () => {
  it('is found only at the start of a cell', () => {
    expect(magicLine(CELL)).toEqual({ from: 0, to: CELL.indexOf('\n') });
    expect(magicLine('\n  \n%%tile_kernel\nx')).toEqual({ from: 4, to: 17 });
    expect(isTileKernelCell('%%tile_kernel')).toBe(true);
    expect(isTileKernelCell('x = 1\n%%tile_kernel')).toBe(false);
    expect(isTileKernelCell('%%tile_kernels\n')).toBe(false);
    expect(isTileKernelCell('%%timeit\n')).toBe(false);
  });

  it('colours the magic and its options', () => {
    const line = '%%tile_kernel --target cpu -x --stages=tile';
    expect(magicTokens(line).map(token => [token.kind, line.slice(token.from, token.to)])).toEqual([
      ['magic', '%%tile_kernel'],
      ['option', '--target'],
      ['option', '-x'],
      ['option', '--stages']
    ]);
  });

  it('picks the cell mimetype: ours for magic cells, the notebook one back when the magic goes', () => {
    expect(wantedMimeType(CELL, 'text/x-ipython', 'text/x-ipython')).toBe(TILE_KERNEL_MIME);
    expect(wantedMimeType('x = 1', TILE_KERNEL_MIME, 'text/x-ipython')).toBe('text/x-ipython');
    expect(wantedMimeType('x = 1', 'text/x-ipython', 'text/x-ipython')).toBe('text/x-ipython');
  });
});

describe('CellMagicParser', () => {
  it('parses the Python below the magic with no error nodes, at document positions', () => {
    expect(errorNodes(pythonLanguage.parser.parse(CELL))).toBeGreaterThan(0);
    const tree = new CellMagicParser(pythonLanguage.parser).parse(CELL);
    expect(errorNodes(tree)).toBe(0);
    expect(tree.length).toBe(CELL.length);
    const def = tree.resolveInner(CELL.indexOf('def') + 1, 1);
    expect(def.name).toBe('def');
    expect(def.from).toBe(CELL.indexOf('def'));
    const name = tree.resolveInner(CELL.indexOf('f(x') + 1, -1);
    expect(name.name).toBe('VariableName');
  });

  it('leaves cells without the magic alone', () => {
    const text = 'x = %time 1\n';
    const ours = new CellMagicParser(pythonLanguage.parser).parse(text).toString();
    expect(ours).toBe(pythonLanguage.parser.parse(text).toString());
  });
});
