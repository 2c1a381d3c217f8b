/**
 * The JupyterLab plugin for `%%tile_kernel` cells: registers the cell language (Python with the
 * magic line coloured, see magic.ts) and gives it to every code cell whose source starts with
 * the magic, following edits (and giving the notebook's own language back when the magic goes).
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { CodeCell, ICellModel, ICodeCellModel } from '@jupyterlab/cells';
import { CodeMirrorEditor, IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, Notebook } from '@jupyterlab/notebook';

import { compileErrorAt, documentLine, errorLineField, IErrorOutput, setErrorLine } from './errorline';
import { isTileKernelCell, TILE_KERNEL_LANGUAGE, TILE_KERNEL_MIME, tileKernelSupport, wantedMimeType } from './magic';

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
    const outputs = (cell as ICodeCellModel).outputs;
    const mark = () => markErrorLine(cell as ICodeCellModel, notebook);
    outputs.changed.connect(mark);
    requestAnimationFrame(mark); // a reopened notebook's saved error, once the cell's editor exists
  }
}

/** Editors given the error-line field. */
const marked = new WeakSet<CodeMirrorEditor>();

/** Mark (or clear) the compile error's line in a `%%tile_kernel` cell's editor. */
function markErrorLine(cell: ICodeCellModel, notebook: Notebook, again = true): void {
  const widget = notebook.widgets.find(candidate => candidate.model === cell);
  const editor = widget instanceof CodeCell ? widget.editor : null;
  if (!(editor instanceof CodeMirrorEditor)) {
    // A cell out of view has no editor yet (JupyterLab renders the cells in view): once more when it does.
    if (widget instanceof CodeCell && again) {
      void widget.ready.then(() => markErrorLine(cell, notebook, false));
    }
    return;
  }
  const source = cell.sharedModel.getSource();
  if (!marked.has(editor) && !isTileKernelCell(source)) {
    return;
  }
  if (!marked.has(editor)) {
    editor.injectExtension(errorLineField);
    marked.add(editor);
  }
  const outputs: IErrorOutput[] = [];
  for (let i = 0; i < cell.outputs.length; i++) {
    outputs.push(cell.outputs.get(i).toJSON() as IErrorOutput);
  }
  const found = compileErrorAt(outputs);
  const error = outputs.find(output => output.output_type === 'error');
  const value = found ? { line: documentLine(source, found.line), message: error?.evalue ?? '' } : null;
  editor.editor.dispatch({ effects: setErrorLine.of(value) });
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
