/**
 * The only way this extension makes DOM: elements with classes, attributes from a fixed list
 * and text set through `textContent`. Nothing from a report ever reaches `innerHTML`, an event
 * handler attribute, a URL or a style.
 */

export interface IElementOptions {
  /** Class names (joined with spaces). */
  cls?: string | string[];
  /** Text content (never parsed as HTML). */
  text?: string;
  /** Tooltip. */
  title?: string;
  /** Attributes; only names in SAFE_ATTRIBUTES or starting with `data-` / `aria-` are set. */
  attrs?: Record<string, string>;
}

const SAFE_ATTRIBUTES = new Set(['role', 'tabindex', 'type', 'title']);

/** Whether an attribute name is one this module will set. */
export function isSafeAttribute(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower.startsWith('on')) {
    return false;
  }
  return SAFE_ATTRIBUTES.has(lower) || /^(data|aria)-[a-z0-9-]+$/.test(lower);
}

/** An element with classes, text and safe attributes, holding `children`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: IElementOptions = {},
  children: ReadonlyArray<Node | null | undefined> = []
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const classes = typeof options.cls === 'string' ? [options.cls] : options.cls ?? [];
  for (const name of classes) {
    for (const part of name.split(' ')) {
      if (part) {
        element.classList.add(part);
      }
    }
  }
  if (options.text !== undefined) {
    element.textContent = options.text;
  }
  if (options.title !== undefined) {
    element.title = options.title;
  }
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (!isSafeAttribute(name)) {
      throw new Error(`refusing to set attribute ${name}: only role, tabindex, type, title, data-* and aria-*`);
    }
    element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child) {
      element.appendChild(child);
    }
  }
  return element;
}

/** Remove every child of `element`. */
export function clear(element: Element): void {
  while (element.firstChild) {
    element.removeChild(element.firstChild);
  }
}
