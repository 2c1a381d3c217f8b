/**
 * The report's room: splitters that resize the panes side by side and the panes' height, a
 * full-width mode (one pane per row), line wrapping, and the assembly filters' toggles. Hiding
 * is done by classes on the pane or the report (CSS in style/base.css); lines stay in the DOM
 * with their numbers, so line links and highlights work the same with lines hidden.
 */

import { h } from './dom';
import { FILTER_KINDS, FilterKind, IStage } from './report';

/** The filters' names on their buttons. */
export const FILTER_LABELS: Record<FilterKind, string> = {
  directive: 'directives',
  comment: 'comments',
  label: 'unused labels',
  constant: 'constant pools'
};

/** A toggle button (aria-pressed) that calls `onChange` with its new state. */
export function toggleButton(
  text: string,
  pressed: boolean,
  onChange: (pressed: boolean) => void,
  title?: string
): HTMLButtonElement {
  const button = h('button', {
    cls: 'klv-toggle',
    text,
    title,
    attrs: { type: 'button', 'aria-pressed': String(pressed) }
  });
  button.addEventListener('click', () => {
    const next = button.getAttribute('aria-pressed') !== 'true';
    button.setAttribute('aria-pressed', String(next));
    onChange(next);
  });
  return button;
}

/**
 * Hide-toggles for the kinds of lines a stage has (all on at first). The state is kept per kind
 * across stages; `show(stage)` rebuilds the buttons for a stage's counts.
 */
export class FilterBar {
  readonly node = h('div', { cls: 'klv-filters', attrs: { role: 'group', 'aria-label': 'hide lines' } });
  private readonly _hidden = new Set<FilterKind>(FILTER_KINDS);

  constructor(private readonly _pane: HTMLElement) {
    this._apply();
  }

  show(stage: IStage): void {
    this.node.replaceChildren();
    const kinds = FILTER_KINDS.filter(kind => (stage.filters[kind] ?? []).length > 0);
    this.node.hidden = kinds.length === 0;
    if (kinds.length > 0) {
      this.node.appendChild(h('span', { cls: 'klv-filters-label', text: 'hide' }));
    }
    for (const kind of kinds) {
      const count = stage.filters[kind]?.length ?? 0;
      const button = toggleButton(
        `${FILTER_LABELS[kind]} ${count}`,
        this._hidden.has(kind),
        hide => {
          if (hide) {
            this._hidden.add(kind);
          } else {
            this._hidden.delete(kind);
          }
          this._apply();
        },
        `hide ${FILTER_LABELS[kind]} (${count} lines)`
      );
      button.setAttribute('data-filter', kind);
      this.node.appendChild(button);
    }
  }

  private _apply(): void {
    for (const kind of FILTER_KINDS) {
      this._pane.classList.toggle(`klv-hide-${kind}`, this._hidden.has(kind));
    }
  }
}

/** Pane widths as flex-grow ratios, in pixels now. */
function currentWidths(panes: readonly HTMLElement[]): number[] {
  return panes.map(pane => Math.max(1, pane.getBoundingClientRect().width));
}

/** The smallest width a pane is dragged down to. */
const MIN_PANE = 120;

/**
 * A vertical splitter between two panes of a flex row: dragging moves width from one to the
 * other (the others keep theirs); arrow keys move it by 24 px; a double click shares equally.
 */
export function paneSplitter(row: HTMLElement, left: HTMLElement, right: HTMLElement): HTMLElement {
  const splitter = h('div', {
    cls: 'klv-splitter',
    title: 'drag to resize the panes (double-click: equal widths)',
    attrs: { role: 'separator', 'aria-orientation': 'vertical', tabindex: '0' }
  });
  const panes = () => Array.from(row.children).filter(child => child.classList.contains('klv-pane')) as HTMLElement[];
  const move = (start: number[], delta: number) => {
    const all = panes();
    const i = all.indexOf(left);
    const j = all.indexOf(right);
    if (i < 0 || j < 0) {
      return;
    }
    const total = start[i] + start[j];
    const least = Math.min(MIN_PANE, total / 4);
    const width = Math.min(total - least, Math.max(least, start[i] + delta));
    const widths = [...start];
    widths[i] = width;
    widths[j] = total - width;
    all.forEach((pane, k) => (pane.style.flexGrow = String(Math.round(widths[k]))));
  };
  splitter.addEventListener('pointerdown', event => {
    const start = currentWidths(panes());
    const x0 = event.clientX;
    splitter.setPointerCapture(event.pointerId);
    splitter.classList.add('klv-dragging');
    const onMove = (moved: PointerEvent) => move(start, moved.clientX - x0);
    const onUp = () => {
      splitter.classList.remove('klv-dragging');
      splitter.removeEventListener('pointermove', onMove);
      splitter.removeEventListener('pointerup', onUp);
      splitter.removeEventListener('pointercancel', onUp);
    };
    splitter.addEventListener('pointermove', onMove);
    splitter.addEventListener('pointerup', onUp);
    splitter.addEventListener('pointercancel', onUp);
    event.preventDefault();
  });
  splitter.addEventListener('keydown', event => {
    const step = event.key === 'ArrowLeft' ? -24 : event.key === 'ArrowRight' ? 24 : 0;
    if (step !== 0) {
      move(currentWidths(panes()), step);
      event.preventDefault();
    }
  });
  splitter.addEventListener('dblclick', () => panes().forEach(pane => (pane.style.flexGrow = '')));
  return splitter;
}

/** A horizontal handle under the panes: dragging sets the code height (`--klv-code-height`). */
export function heightHandle(report: HTMLElement, body: () => HTMLElement | null): HTMLElement {
  const handle = h('div', {
    cls: 'klv-height',
    title: 'drag to change the panes\u2019 height',
    attrs: { role: 'separator', 'aria-orientation': 'horizontal', tabindex: '0' }
  });
  const heightNow = () => body()?.getBoundingClientRect().height ?? 300;
  const set = (pixels: number) => {
    report.style.setProperty('--klv-code-height', `${Math.max(80, Math.round(pixels))}px`);
    report.classList.add('klv-sized'); // every pane takes the chosen height, short ones too
  };
  handle.addEventListener('pointerdown', event => {
    const start = heightNow();
    const y0 = event.clientY;
    handle.setPointerCapture(event.pointerId);
    const onMove = (moved: PointerEvent) => set(start + moved.clientY - y0);
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
    event.preventDefault();
  });
  handle.addEventListener('keydown', event => {
    const step = event.key === 'ArrowUp' ? -40 : event.key === 'ArrowDown' ? 40 : 0;
    if (step !== 0) {
      set(heightNow() + step);
      event.preventDefault();
    }
  });
  return handle;
}
