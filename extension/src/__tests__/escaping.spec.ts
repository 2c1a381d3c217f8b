/**
 * Nothing from a report is ever parsed as HTML: markup in any text field shows as text, and no
 * element, attribute or script comes from it.
 */
import { h, isSafeAttribute } from '../dom';
import { renderData } from '../render';
import { COMPARE_MIME_TYPE, MIME_TYPE } from '../report';
import { fixture, smallReport } from './helpers';

const SCRIPT = '<script>window.__klPwned = 1</script>';
const IMG = '<img src=x onerror="window.__klPwned = 2">';
const EVIL = `${SCRIPT}${IMG}`;

function hostileReport(): Record<string, unknown> {
  const report = smallReport({
    kernel: EVIL,
    target: IMG,
    options: { [SCRIPT]: IMG },
    diagnostics: [{ severity: 'error', message: EVIL, stage: SCRIPT }],
    metadata: { compile_seconds: { [IMG]: 0.001 }, run: { [SCRIPT]: IMG }, constexprs: { BLOCK: EVIL } }
  });
  (report.source as any).text = `def k(x):\n    ${SCRIPT}\n    ${IMG}\n    return b\n`;
  (report.source as any).file = `/tmp/${IMG}.py`;
  const stages = report.stages as any[];
  stages[0].name = EVIL;
  stages[0].text = `func\n  ${SCRIPT}\n  ${IMG}\n  <b>bold</b>\n  ret\n`;
  return report;
}

function expectInert(node: HTMLElement): void {
  document.body.appendChild(node);
  expect(node.querySelectorAll('script, img, iframe, object, embed, b, style, a')).toHaveLength(0);
  for (const element of [node, ...node.querySelectorAll('*')]) {
    for (const attribute of Array.from(element.attributes)) {
      expect(attribute.name.startsWith('on')).toBe(false);
    }
  }
  expect((window as any).__klPwned).toBeUndefined();
  node.remove();
}

describe('no HTML injection', () => {
  it('shows markup in every field of a report as text', () => {
    const node = renderData(MIME_TYPE, hostileReport());
    expect(node.classList).not.toContain('klv-invalid');
    expectInert(node);
    const text = node.textContent!;
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(text).toContain('<b>bold</b>');
    expect(node.querySelector('.klv-kernel')!.textContent).toBe(EVIL);
    const tab = node.querySelector('.klv-tab')!;
    expect(tab.textContent).toBe(EVIL);
    (tab as HTMLElement).click();
    expectInert(node);
  });

  it('shows markup in an A/B comparison as text', () => {
    const data = fixture('compare.json') as any;
    data.labels = [SCRIPT, IMG];
    data.runs[0].settings = { [IMG]: SCRIPT };
    data.runs[1].check = EVIL;
    data.a = hostileReport();
    data.b = hostileReport();
    data.b.stages[0].text += `  ${IMG}\n`;
    const node = renderData(COMPARE_MIME_TYPE, data);
    expect(node.classList).not.toContain('klv-invalid');
    expectInert(node);
    expect(node.textContent).toContain(`${SCRIPT} vs ${IMG}`);
    for (const tab of Array.from(node.querySelectorAll('.klv-tab'))) {
      (tab as HTMLElement).click();
    }
    expectInert(node);
  });

  it('shows a broken bundle as text saying what is wrong', () => {
    const node = renderData(MIME_TYPE, { ...hostileReport(), version: EVIL });
    expect(node.classList).toContain('klv-invalid');
    expect(node.textContent).toContain(JSON.stringify(EVIL));
    expectInert(node);
  });

  it('sets no event-handler attribute', () => {
    expect(isSafeAttribute('onclick')).toBe(false);
    expect(isSafeAttribute('ONERROR')).toBe(false);
    expect(isSafeAttribute('href')).toBe(false);
    expect(isSafeAttribute('style')).toBe(false);
    expect(isSafeAttribute('data-line')).toBe(true);
    expect(() => h('div', { attrs: { onmouseover: 'x()' } })).toThrow(/refusing/);
  });
});
