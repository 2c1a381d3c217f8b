/**
 * Line diffs for the A/B view: Myers' shortest edit script over the lines of two stages, and
 * the hunks (changed runs with a few lines of context) the view shows.
 */

export type DiffKind = 'same' | 'removed' | 'added';

export interface IDiffLine {
  kind: DiffKind;
  /** 1-based line in A (null for an added line). */
  a: number | null;
  /** 1-based line in B (null for a removed line). */
  b: number | null;
  text: string;
}

/** A run of diff lines to show, or a run of unchanged lines folded away. */
export type DiffRow = { kind: 'line'; line: IDiffLine } | { kind: 'fold'; count: number; a: number; b: number };

/** Edits beyond this many make the middle of the diff one replaced block (keeps memory bounded). */
export const MAX_EDITS = 4000;

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n < limit && a[n] === b[n]) {
    n++;
  }
  return n;
}

function commonSuffix(a: readonly string[], b: readonly string[], prefix: number): number {
  const limit = Math.min(a.length, b.length) - prefix;
  let n = 0;
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) {
    n++;
  }
  return n;
}

/**
 * Myers' greedy forward search; returns the V array of every round (round d holds diagonals
 * -d..d), or null when more than `maxEdits` edits are needed.
 */
function myersTrace(a: readonly string[], b: readonly string[], maxEdits: number): Int32Array[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxEdits);
  const trace: Int32Array[] = [];
  let previous = new Int32Array(1);
  for (let d = 0; d <= limit; d++) {
    const v = new Int32Array(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      // previous round's x on diagonal kk (previous covers -(d-1)..d-1)
      const at = (kk: number) => previous[kk + d - 1];
      let x: number;
      if (d === 0) {
        x = 0;
      } else if (k === -d || (k !== d && at(k - 1) < at(k + 1))) {
        x = at(k + 1);
      } else {
        x = at(k - 1) + 1;
      }
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + d] = x;
      if (x >= n && y >= m) {
        trace.push(v);
        return trace;
      }
    }
    trace.push(v);
    previous = v;
  }
  return null;
}

/** Walk the trace back into a list of edits over a (offset by `base`). */
function backtrack(a: readonly string[], b: readonly string[], trace: Int32Array[]): IDiffLine[] {
  const out: IDiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const k = x - y;
    let prevK: number;
    if (d === 0) {
      prevK = 0;
    } else {
      const prev = trace[d - 1];
      const at = (kk: number) => prev[kk + d - 1];
      prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    }
    const prevX = d === 0 ? 0 : trace[d - 1][prevK + d - 1];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      out.push({ kind: 'same', a: x + 1, b: y + 1, text: a[x] });
    }
    if (d > 0) {
      if (x === prevX) {
        y--;
        out.push({ kind: 'added', a: null, b: y + 1, text: b[y] });
      } else {
        x--;
        out.push({ kind: 'removed', a: x + 1, b: null, text: a[x] });
      }
    }
  }
  return out.reverse();
}

function shift(lines: IDiffLine[], offset: number): IDiffLine[] {
  return lines.map(line => ({
    ...line,
    a: line.a === null ? null : line.a + offset,
    b: line.b === null ? null : line.b + offset
  }));
}

function replaced(a: readonly string[], b: readonly string[], offset: number): IDiffLine[] {
  return [
    ...a.map((text, i) => ({ kind: 'removed' as const, a: offset + i + 1, b: null, text })),
    ...b.map((text, i) => ({ kind: 'added' as const, a: null, b: offset + i + 1, text }))
  ];
}

/** The line diff of `a` into `b` (shortest edit script; one replaced block past MAX_EDITS). */
export function diffLines(a: readonly string[], b: readonly string[], maxEdits: number = MAX_EDITS): IDiffLine[] {
  const prefix = commonPrefix(a, b);
  const suffix = commonSuffix(a, b, prefix);
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const trace = myersTrace(midA, midB, maxEdits);
  const middle = trace ? shift(backtrack(midA, midB, trace), prefix) : replaced(midA, midB, prefix);
  const head = a.slice(0, prefix).map((text, i) => ({ kind: 'same' as const, a: i + 1, b: i + 1, text }));
  const tail = a.slice(a.length - suffix).map((text, i) => ({
    kind: 'same' as const,
    a: a.length - suffix + i + 1,
    b: b.length - suffix + i + 1,
    text
  }));
  return [...head, ...middle, ...tail];
}

/** Counts of a diff's lines. */
export function diffStats(lines: readonly IDiffLine[]): { same: number; removed: number; added: number } {
  const stats = { same: 0, removed: 0, added: 0 };
  for (const line of lines) {
    stats[line.kind]++;
  }
  return stats;
}

/** The rows to show: changed lines with `context` unchanged lines around them, the rest folded. */
export function diffRows(lines: readonly IDiffLine[], context = 3): DiffRow[] {
  const keep = new Uint8Array(lines.length);
  lines.forEach((line, i) => {
    if (line.kind === 'same') {
      return;
    }
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) {
      keep[j] = 1;
    }
  });
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (keep[i]) {
      rows.push({ kind: 'line', line: lines[i] });
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && !keep[i]) {
      i++;
    }
    rows.push({ kind: 'fold', count: i - start, a: lines[start].a ?? 0, b: lines[start].b ?? 0 });
  }
  return rows;
}

/** Stage names of two reports paired for comparison: A's order, then stages only B has. */
export function pairStages(a: readonly string[], b: readonly string[]): string[] {
  return [...a, ...b.filter(name => !a.includes(name))];
}
