import { readReport } from '../report';
import { ReportView } from '../viewer';
import { smallReport } from './helpers';

/** smallReport with filters on its asm stage: line 1 a label, line 5 a directive. */
function filteredReport(filters: unknown = { label: [1], directive: [5] }) {
  const data = smallReport();
  const stages = data.stages as Array<Record<string, unknown>>;
  stages[1].text = 'k:\n  mov\n  add\n  add\n  .cfi_endproc\n';
  stages[1].filters = filters;
  return readReport(data);
}

function asmPane(root: HTMLElement): HTMLElement {
  return [...root.querySelectorAll('.klv-stage')].find(pane =>
    pane.querySelector('.klv-lines[data-pane="asm"]')
  ) as HTMLElement;
}

describe('the report layout', () => {
  it('reads the filters of a stage, and refuses malformed ones', () => {
    expect(filteredReport().stages[1].filters).toEqual({ label: [1], directive: [5] });
    expect(filteredReport({ other: [1] }).stages[1].filters).toEqual({});
    expect(() => filteredReport({ label: ['1'] })).toThrow(/filters.label must be a list of line numbers/);
    expect(readReport(smallReport()).stages[0].filters).toEqual({});
  });

  it('marks filtered lines, hides them by default, and toggles each kind', () => {
    const view = new ReportView(filteredReport());
    const pane = asmPane(view.node);
    const label = pane.querySelector('.klv-line[data-line="1"]')!;
    expect(label.classList).toContain('klv-f-label');
    expect(pane.querySelector('.klv-line[data-line="5"]')!.classList).toContain('klv-f-directive');
    expect(pane.classList).toContain('klv-hide-label');
    expect(pane.classList).toContain('klv-hide-directive');
    const buttons = [...pane.querySelectorAll('.klv-filters .klv-toggle')] as HTMLButtonElement[];
    expect(buttons.map(button => button.getAttribute('data-filter'))).toEqual(['directive', 'label']);
    expect(buttons.map(button => button.textContent)).toEqual(['directives 1', 'unused labels 1']);
    buttons[1].click();
    expect(pane.classList).not.toContain('klv-hide-label');
    expect(buttons[1].getAttribute('aria-pressed')).toBe('false');
    expect(pane.classList).toContain('klv-hide-directive');
  });

  it('keeps line links with lines hidden: hovering a source line lights its asm lines', () => {
    const view = new ReportView(filteredReport());
    document.body.appendChild(view.node);
    const source = view.node.querySelector('.klv-source .klv-line[data-line="12"]')!;
    source.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    const lit = [...asmPane(view.node).querySelectorAll('.klv-hl')].map(node => node.getAttribute('data-line'));
    expect(lit).toEqual(['3', '4']);
    view.node.remove();
  });

  it('has splitters between panes, a height handle, full-width and wrap toggles', () => {
    const view = new ReportView(filteredReport());
    const row = view.node.querySelector('.klv-panes')!;
    const kinds = [...row.children].map(child => (child.classList.contains('klv-splitter') ? 'split' : 'pane'));
    expect(kinds).toEqual(['pane', 'split', 'pane', 'split', 'pane']);
    expect(view.node.querySelector('.klv-height')).not.toBeNull();
    const toggles = [...view.node.querySelectorAll('.klv-chips .klv-toggle')] as HTMLButtonElement[];
    expect(toggles.map(button => button.textContent)).toEqual(['full width', 'wrap lines']);
    toggles[0].click();
    toggles[1].click();
    expect(view.node.classList).toContain('klv-wide');
    expect(view.node.classList).toContain('klv-wrap');
    const splitter = row.children[1] as HTMLElement;
    splitter.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }));
    const grows = [0, 2].map(k => Number((row.children[k] as HTMLElement).style.flexGrow));
    expect(grows[0]).toBeGreaterThan(grows[1]); // moved right: the left pane grew
  });
});
