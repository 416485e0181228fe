// A document as a form generated from its model's JSON Schema: a text box per string, a number box per
// number, a list per enum or boolean, a JSON box for objects and arrays. Each field has its place for an
// error message, which a 422's `loc` points at.
import { type Child, h, select, uid } from './dom.js'
import type { Doc } from './json-patch.js'
import { choices, kindOf, nonNull, propertiesOf, type Schema } from './schema.js'

interface Field {
  name: string
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
  error: HTMLElement
  read(original: Doc): { set: boolean, value?: unknown }
  write(value: unknown): void
}

export interface SchemaForm {
  element: HTMLElement
  names: string[]
  fill(doc: Doc): void
  /** The document as the form says; throws an Error naming the first field that holds no valid value. */
  read(original: Doc): Doc
  /** Shows `message` at a field; false when the form has no such field. */
  showError(name: string, message: string): boolean
  clearErrors(): void
}

const NOT_SET = '\u0000'

function control(name: string, schema: Schema, id: string): Pick<Field, 'control' | 'read' | 'write'> {
  const { schema: base, nullable } = nonNull(schema)
  const kind = kindOf(base)
  const empty = (original: Doc): { set: boolean, value?: unknown } => (nullable && Object.hasOwn(original, name) && original[name] === null ? { set: true, value: null } : { set: false })
  if (kind === 'choice' || kind === 'boolean') {
    const values = kind === 'boolean' ? [true, false] : choices(base)!
    const options: Array<[string, string]> = [[NOT_SET, '(not set)'], ...values.map((value, index): [string, string] => [String(index), JSON.stringify(value)])]
    if (nullable) options.push(['null', 'null'])
    const element = select({ id }, options)
    return {
      control: element,
      read: () => (element.value === NOT_SET ? { set: false } : { set: true, value: element.value === 'null' ? null : values[Number(element.value)] }),
      write: (value) => {
        const index = values.indexOf(value)
        element.value = value === null && nullable ? 'null' : index === -1 ? NOT_SET : String(index)
      },
    }
  }
  if (kind === 'json') {
    const element = h('textarea', { id, rows: 3, spellcheck: 'false' })
    return {
      control: element,
      read: (original) => {
        if (element.value.trim() === '') return empty(original)
        try {
          return { set: true, value: JSON.parse(element.value) }
        } catch {
          throw new Error(`${name}: not valid JSON`)
        }
      },
      write: (value) => {
        element.value = value === undefined ? '' : JSON.stringify(value, null, 1)
      },
    }
  }
  const numeric = kind === 'number' || kind === 'integer'
  const element = h('input', { id, type: numeric ? 'number' : 'text', step: kind === 'integer' ? 1 : numeric ? 'any' : undefined, autocomplete: 'off' })
  return {
    control: element,
    read: (original) => {
      if (element.value === '') return original[name] === '' ? { set: true, value: '' } : empty(original)
      if (!numeric) return { set: true, value: element.value }
      const number = Number(element.value)
      if (!Number.isFinite(number)) throw new Error(`${name}: not a number`)
      return { set: true, value: number }
    },
    write: (value) => {
      element.value = value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value)
    },
  }
}

/** A form of the schema's properties, `readOnly` ones (the id) left out, `only` keeping those named. */
export function schemaForm(schema: Schema, only?: Set<string>): SchemaForm {
  const { properties, required } = propertiesOf(schema)
  const fields: Field[] = []
  const rows: Child[] = []
  for (const [name, property] of Object.entries(properties)) {
    if (property['readOnly'] === true || name === 'id' || (only !== undefined && !only.has(name))) continue
    const id = uid('field')
    const error = h('p', { class: 'field-error', id: `${id}-error` })
    const made = control(name, property, id)
    made.control.setAttribute('aria-describedby', error.id)
    if (required.has(name)) made.control.setAttribute('aria-required', 'true')
    fields.push({ name, error, ...made })
    rows.push(h('div', { class: 'field', 'data-field': name }, h('label', { for: id }, name, required.has(name) ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null), made.control, error))
  }
  const find = (name: string) => fields.find((field) => field.name === name)
  return {
    element: h('div', { class: 'form' }, ...rows),
    names: fields.map((field) => field.name),
    fill(doc) {
      for (const field of fields) field.write(doc[field.name])
    },
    read(original) {
      const doc: Doc = {}
      for (const field of fields) {
        const { set, value } = field.read(original)
        if (set) doc[field.name] = value
      }
      return doc
    },
    showError(name, message) {
      const field = find(name)
      if (field === undefined) return false
      field.error.textContent = field.error.textContent === '' ? message : `${field.error.textContent} ${message}`
      field.control.setAttribute('aria-invalid', 'true')
      return true
    },
    clearErrors() {
      for (const field of fields) {
        field.error.textContent = ''
        field.control.removeAttribute('aria-invalid')
      }
    },
  }
}
