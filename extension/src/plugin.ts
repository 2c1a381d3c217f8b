/**
 * The JupyterLab plugin for `%%tile_kernel` cells: registers the cell language (Python with the
 * magic line coloured, see magic.ts) and gives it to every code cell whose source starts with
 * the magic, following edits (and giving the notebook's own language back when the magic goes).
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICellModel } from '@jupyterlab/cells';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, Notebook } from '@jupyterlab/notebook';

import { TILE_KERNEL_LANGUAGE, TILE_KERNEL_MIME, tileKernelSupport, wantedMimeType } from './magic';

/** Keeps the mimetype of every code cell of the tracked notebooks right. */
class TileKernelCells {
  private readonly _watched = new WeakSet<ICellModel>();

  watchNotebook(notebook: Notebook): void {
    const attach = () => {
      const model = notebook.model;
      if (!model) {
        return;
      }
      model.cells.changed.connect(() => this._scan(notebook));
      this._scan(notebook);
    };
    notebook.modelChanged.connect(attach);
    attach();
  }

  private _scan(notebook: Notebook): void {
    const cells = notebook.model?.cells;
    if (!cells) {
      return;
    }
    for (let i = 0; i < cells.length; i++) {
      this._watchCell(cells.get(i), notebook);
    }
  }

  private _watchCell(cell: ICellModel, notebook: Notebook): void {
    if (cell.type !== 'code' || this._watched.has(cell)) {
      return;
    }
    this._watched.add(cell);
    const update = () => {
      const wanted = wantedMimeType(cell.sharedModel.getSource(), cell.mimeType, notebook.codeMimetype);
      if (cell.mimeType !== wanted) {
        cell.mimeType = wanted;
      }
    };
    cell.contentChanged.connect(update);
    // The notebook resets every cell's mimetype when its kernel's language is known or changes.
    cell.mimeTypeChanged.connect(update);
    update();
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'kernellab-jupyterlab:tile-kernel-highlighting',
  description: 'Highlights %%tile_kernel cells as Python.',
  autoStart: true,
  requires: [IEditorLanguageRegistry, INotebookTracker],
  activate: (_app: JupyterFrontEnd, languages: IEditorLanguageRegistry, notebooks: INotebookTracker) => {
    languages.addLanguage({
      name: TILE_KERNEL_LANGUAGE,
      displayName: 'kernellab %%tile_kernel (Python)',
      mime: TILE_KERNEL_MIME,
      load: async () => {
        const python = (await languages.getLanguage('ipython')) ?? (await languages.getLanguage('python'));
        if (!python?.support) {
          throw new Error('kernellab: JupyterLab has no Python editor language to build %%tile_kernel cells on');
        }
        return tileKernelSupport(python.support);
      }
    });
    const cells = new TileKernelCells();
    notebooks.widgetAdded.connect((_, panel) => cells.watchNotebook(panel.content));
    notebooks.forEach(panel => cells.watchNotebook(panel.content));
  }
};

export default plugin;
