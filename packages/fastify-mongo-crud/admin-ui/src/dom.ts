// Elements made from their parts. Data only ever becomes text (text nodes, attribute values): nothing is
// parsed as HTML, so a document's values cannot inject markup or script.

export type Child = Node | string | number | null | undefined | false
type AttrValue = string | number | boolean | null | undefined
export type Attrs = Record<string, AttrValue | ((event: Event) => void)>

function apply(element: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (value === true) element.setAttribute(name, '')
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
}

function append(element: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'number' ? String(child) : child)
  }
}

/** An HTML element with attributes (`onclick`: a listener) and children (strings become text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  apply(element, attrs)
  append(element, children)
  return element
}

/** An SVG element. */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag)
  apply(element, attrs)
  append(element, children)
  return element
}

/** Replaces an element's children. */
export function fill(element: Element, ...children: Child[]): void {
  element.replaceChildren()
  append(element, children)
}

let counter = 0
/** A unique element id. */
export const uid = (prefix: string): string => `${prefix}-${++counter}`

/** A value as one line of text: strings as they are, everything else as JSON. */
export function display(value: unknown): string {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  const text = JSON.stringify(value)
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

/** A select whose options are [value, label] pairs. */
export function select(attrs: Attrs, options: Array<[string, string]>, selected?: string): HTMLSelectElement {
  const element = h('select', attrs)
  for (const [value, label] of options) element.append(h('option', { value, selected: value === selected }, label))
  return element
}
