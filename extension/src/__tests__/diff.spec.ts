import { diffLines, diffRows, diffStats, IDiffLine, pairStages } from '../diff';

function sides(lines: IDiffLine[]): { a: string[]; b: string[] } {
  return {
    a: lines.filter(line => line.kind !== 'added').map(line => line.text),
    b: lines.filter(line => line.kind !== 'removed').map(line => line.text)
  };
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('diffLines', () => {
  it('finds the shortest edit script (Myers: ABCABBA -> CBABAC takes 5 edits)', () => {
    const a = 'ABCABBA'.split('');
    const b = 'CBABAC'.split('');
    const lines = diffLines(a, b);
    const stats = diffStats(lines);
    expect(stats.removed + stats.added).toBe(5);
    expect(sides(lines)).toEqual({ a, b });
  });

  it('numbers lines on both sides', () => {
    const lines = diffLines(['x', 'y', 'z'], ['x', 'q', 'z']);
    expect(lines).toEqual([
      { kind: 'same', a: 1, b: 1, text: 'x' },
      { kind: 'removed', a: 2, b: null, text: 'y' },
      { kind: 'added', a: null, b: 2, text: 'q' },
      { kind: 'same', a: 3, b: 3, text: 'z' }
    ]);
  });

  it('handles empty and identical sides', () => {
    expect(diffLines([], [])).toEqual([]);
    expect(diffStats(diffLines(['a'], []))).toEqual({ same: 0, removed: 1, added: 0 });
    expect(diffStats(diffLines([], ['a', 'b']))).toEqual({ same: 0, removed: 0, added: 2 });
    expect(diffStats(diffLines(['a', 'b'], ['a', 'b']))).toEqual({ same: 2, removed: 0, added: 0 });
  });

  it('rebuilds both sides of random edits, never longer than the edits made', () => {
    const random = seeded(7);
    for (let trial = 0; trial < 200; trial++) {
      const a = Array.from({ length: Math.floor(random() * 30) }, () => String(Math.floor(random() * 5)));
      const b = [...a];
      const edits = Math.floor(random() * 6);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * (b.length + 1));
        if (random() < 0.5 && b.length > 0) {
          b.splice(Math.min(at, b.length - 1), 1);
        } else {
          b.splice(at, 0, String(Math.floor(random() * 5)));
        }
      }
      const lines = diffLines(a, b);
      expect(sides(lines)).toEqual({ a, b });
      const stats = diffStats(lines);
      expect(stats.removed + stats.added).toBeLessThanOrEqual(edits);
      expect(lines.filter(line => line.a !== null).map(line => line.a)).toEqual(a.map((_, i) => i + 1));
      expect(lines.filter(line => line.b !== null).map(line => line.b)).toEqual(b.map((_, i) => i + 1));
    }
  });

  it('shows one replaced block past the edit limit', () => {
    const a = ['h', '1', '2', '3', 't'];
    const b = ['h', '4', '5', 't'];
    const lines = diffLines(a, b, 2);
    expect(lines.map(line => line.kind)).toEqual(['same', 'removed', 'removed', 'removed', 'added', 'added', 'same']);
    expect(sides(lines)).toEqual({ a, b });
  });
});

describe('diffRows', () => {
  it('folds unchanged runs beyond the context', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const b = [...a];
    b[10] = 'changed';
    const rows = diffRows(diffLines(a, b), 2);
    expect(rows[0]).toEqual({ kind: 'fold', count: 8, a: 1, b: 1 });
    const shown = rows.filter(row => row.kind === 'line');
    expect(shown).toHaveLength(6); // 2 context + removed + added + 2 context
    expect(rows[rows.length - 1]).toEqual({ kind: 'fold', count: 7, a: 14, b: 14 });
  });

  it('pairs stages: A first, then those only B has', () => {
    expect(pairStages(['tile', 'llvm'], ['tile', 'ptx', 'llvm'])).toEqual(['tile', 'llvm', 'ptx']);
  });
});
