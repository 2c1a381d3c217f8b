/**
 * An output's data as a view: the compile report viewer or the A/B view, chosen by MIME type.
 */

import { CompareView } from './compare';
import { h } from './dom';
import { COMPARE_MIME_TYPE, readCompare, readReport, ReportError } from './report';
import { ReportView } from './viewer';

/** Build the view of an output's data, or an element that says why it cannot be shown. */
export function renderData(mimeType: string, data: unknown): HTMLElement {
  try {
    return mimeType === COMPARE_MIME_TYPE
      ? new CompareView(readCompare(data)).node
      : new ReportView(readReport(data)).node;
  } catch (error) {
    const reason = error instanceof ReportError ? error.message : `the viewer failed: ${String(error)}`;
    return h('div', { cls: 'klv-report klv-invalid' }, [
      h('strong', { text: 'kernellab: cannot show this output. ' }),
      h('span', { text: reason })
    ]);
  }
}
