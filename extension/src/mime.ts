/**
 * The mime renderer extension: `application/vnd.kernellab.compile+json` outputs render as the
 * compile-report viewer, `application/vnd.kernellab.compare+json` as the A/B view. It builds DOM
 * from text only, so it is safe to show in untrusted notebooks.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { clear } from './dom';
import { renderData } from './render';
import { COMPARE_MIME_TYPE, MIME_TYPE } from './report';

/** The output widget. */
export class CompileReportRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly _options: IRenderMime.IRendererOptions) {
    super();
    this.addClass('jp-KernellabReport');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    clear(this.node);
    const mimeType = this._options.mimeType;
    this.node.appendChild(renderData(mimeType, model.data[mimeType]));
    return Promise.resolve();
  }
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE, COMPARE_MIME_TYPE],
  createRenderer: options => new CompileReportRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'kernellab-jupyterlab:compile-report',
  description: "kernellab's compile-report viewer and A/B view",
  rendererFactory,
  // Ahead of text/html (the bundle's no-JavaScript fallback).
  rank: 10,
  dataType: 'json'
};

export default extension;
