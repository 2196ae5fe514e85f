/** Small DOM helpers for the viewer's client. */
import { withoutData } from './base64Data.js';

type Child = Node | string | null | undefined | false;

/** An element with attributes (`text` sets its text) and children. */
export function h(tag: string, attrs: Record<string, string> = {}, children: Child[] = []): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'text') node.textContent = value;
    // Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows.
    else if (key === 'style') node.style.cssText = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

/** The element of `root` with `data-testid="id"`. */
export function part<T extends HTMLElement = HTMLElement>(root: ParentNode, id: string): T {
  const node = root.querySelector<T>(`[data-testid="${id}"]`);
  if (!node) throw new Error(`the page has no ${id}`);
  return node;
}

/** A stable colour per tool_use id, so a tool_use and its tool_result match. */
export function hue(id: string): string {
  let x = 0;
  for (let i = 0; i < id.length; i++) x = (x * 31 + id.charCodeAt(i)) % 360;
  return `hsl(${x}, 62%, 42%)`;
}

/** JSON, indented, with spans for keys, strings, numbers and literals; base64 data replaced by a note (media.ts). */
export function highlightJson(value: unknown): string {
  const text = JSON.stringify(withoutData(value), null, 2).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return text.replace(/("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (match, str, colon, lit) => {
    if (str && colon) return `<span class="${str === '"cache_control"' ? 'j-key j-cache' : 'j-key'}">${str}</span>${colon}`;
    if (str) return `<span class="j-str">${str}</span>`;
    if (lit) return `<span class="j-lit">${lit}</span>`;
    return `<span class="j-num">${match}</span>`;
  });
}
