// jsdom has no DragEvent, which @lumino/dragdrop (under @lumino/widgets) extends when imported.
(globalThis as any).DragEvent ??= class DragEvent extends MouseEvent {};
