/**
 * The output widget JupyterLab creates for each MIME type.
 */
import * as mime from '../mime';
import { COMPARE_MIME_TYPE, MIME_TYPE } from '../report';
import { fixture, smallReport } from './helpers';

function render(mimeType: string, data: unknown): HTMLElement {
  const renderer = mime.rendererFactory.createRenderer({ mimeType } as any);
  void renderer.renderModel({ data: { [mimeType]: data } } as any);
  return renderer.node;
}

describe('the rendermime extension', () => {
  it('is safe (renders in untrusted notebooks) and ranks before text/html', () => {
    expect(mime.rendererFactory.safe).toBe(true);
    expect(mime.rendererFactory.mimeTypes).toEqual([MIME_TYPE, COMPARE_MIME_TYPE]);
    expect(mime.default.rank!).toBeLessThan(50);
    expect(mime.default.dataType).toBe('json');
  });

  it('renders a report and an A/B comparison by MIME type', () => {
    const report = render(MIME_TYPE, smallReport());
    expect(report.classList).toContain('jp-KernellabReport');
    expect(report.querySelector('.klv-report .klv-panes')).not.toBeNull();
    const compare = render(COMPARE_MIME_TYPE, fixture('compare.json'));
    expect(compare.querySelector('.klv-compare .klv-abtable')).not.toBeNull();
    const wrong = render(COMPARE_MIME_TYPE, smallReport());
    expect(wrong.querySelector('.klv-invalid')!.textContent).toContain('a (A): a compile report is a JSON object');
  });

  it('replaces its view when the model changes', () => {
    const renderer = mime.rendererFactory.createRenderer({ mimeType: MIME_TYPE } as any);
    void renderer.renderModel({ data: { [MIME_TYPE]: smallReport({ kernel: 'first' }) } } as any);
    void renderer.renderModel({ data: { [MIME_TYPE]: smallReport({ kernel: 'second' }) } } as any);
    const kernels = [...renderer.node.querySelectorAll('.klv-kernel')].map((node: Element) => node.textContent);
    expect(kernels).toEqual(['second']);
  });
});
