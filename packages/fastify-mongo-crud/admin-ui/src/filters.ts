// The filter builder: conditions of field, operator and value, written in the list's closed filter grammar
// (docs/lists.md, docs/http-contract.md), only on the fields the list's `filters` parameter lists as filterable.
import { fill, h, select } from './dom.js'
import { kindOf, nonNull, type Schema, schemaAt } from './schema.js'

export const OPERATORS: Array<[string, string]> = [
  ['$eq', '='],
  ['$ne', '≠'],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
  ['$in', 'is one of (a, b)'],
  ['$nin', 'is none of (a, b)'],
  ['$regex', 'matches (regex, any case)'],
  ['$exists', 'exists'],
]

export type Filter = Record<string, unknown>

interface Row {
  field: HTMLSelectElement
  operator: HTMLSelectElement
  value: HTMLInputElement | HTMLSelectElement
  element: HTMLElement
}

/** A value typed as the field's schema types it: numbers for number fields, booleans for boolean ones. */
function typed(raw: string, schema: Schema | undefined, label: string): unknown {
  const { schema: field, nullable } = nonNull(schema)
  if (raw === 'null' && nullable) return null
  const kind = kindOf(field)
  if (kind === 'number' || kind === 'integer') {
    const number = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(number)) throw new Error(`${label}: ${JSON.stringify(raw)} is not a number`)
    return number
  }
  if (kind === 'boolean') return raw === 'true'
  return raw
}

/** One condition as the grammar writes it: `{ "$gte": 18 }`. */
function condition(op: string, raw: string, schema: Schema | undefined, label: string): Record<string, unknown> {
  if (op === '$exists') return { $exists: raw === 'true' }
  if (op === '$regex') return { $regex: raw, $options: 'i' }
  if (op === '$in' || op === '$nin') {
    const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
    return { [op]: items.map((item) => typed(item, schema, label)) }
  }
  return { [op]: typed(raw, schema, label) }
}

/** Conditions on distinct fields and operators make one object; a field and operator named twice, an `$and`. */
export function combine(conditions: Array<[string, Record<string, unknown>]>): Filter | undefined {
  if (conditions.length === 0) return undefined
  const merged: Record<string, Record<string, unknown>> = {}
  for (const [field, test] of conditions) {
    const op = Object.keys(test)[0]!
    if (merged[field] !== undefined && op in merged[field]!) return { $and: conditions.map(([name, each]) => ({ [name]: each })) }
    merged[field] = { ...merged[field], ...test }
  }
  return merged
}

export interface FilterBuilder {
  element: HTMLElement
  /** The filter of the rows as they are; throws naming the condition whose value does not fit its field. */
  read(): Filter | undefined
}

/** The builder's controls; `apply` is called with the filter to list by. */
export function filterBuilder(fields: string[], outSchema: Schema, apply: (filter: Filter | undefined) => void): FilterBuilder {
  const rows: Row[] = []
  const list = h('div', { class: 'conditions' })
  const problem = h('p', { class: 'error', role: 'alert' })
  const valueControl = (row: Pick<Row, 'field' | 'operator'>, index: number): HTMLInputElement | HTMLSelectElement => {
    const kind = kindOf(nonNull(schemaAt(outSchema, row.field.value)).schema)
    const label = `Value of condition ${index}`
    if (row.operator.value === '$exists' || (kind === 'boolean' && !['$in', '$nin'].includes(row.operator.value))) {
      return select({ 'aria-label': label }, [['true', 'true'], ['false', 'false']])
    }
    const number = (kind === 'number' || kind === 'integer') && !['$in', '$nin', '$regex'].includes(row.operator.value)
    return h('input', { type: number ? 'number' : 'text', 'aria-label': label, step: number ? 'any' : undefined })
  }
  const addRow = () => {
    const index = rows.length + 1
    const field = select({ 'aria-label': `Field of condition ${index}` }, fields.map((name) => [name, name]))
    const operator = select({ 'aria-label': `Operator of condition ${index}` }, OPERATORS)
    const row: Row = { field, operator, value: valueControl({ field, operator }, index), element: h('div', { class: 'condition' }) }
    const refresh = () => {
      const next = valueControl(row, index)
      if (next.tagName === row.value.tagName && next.getAttribute('type') === row.value.getAttribute('type')) return
      row.value.replaceWith(next)
      row.value = next
    }
    field.addEventListener('change', refresh)
    operator.addEventListener('change', refresh)
    const remove = h('button', { type: 'button', 'aria-label': `Remove condition ${index}`, onclick: () => {
      rows.splice(rows.indexOf(row), 1)
      row.element.remove()
    } }, '×')
    fill(row.element, field, operator, row.value, remove)
    rows.push(row)
    list.append(row.element)
    field.focus()
  }
  const read = (): Filter | undefined => combine(rows.map((row, index) => {
    const name = row.field.value
    return [name, condition(row.operator.value, row.value.value, schemaAt(outSchema, name), `Condition ${index + 1} (${name})`)]
  }))
  const submit = () => {
    try {
      const filter = read()
      problem.textContent = ''
      apply(filter)
    } catch (error) {
      problem.textContent = (error as Error).message
    }
  }
  const clear = () => {
    for (const row of rows.splice(0)) row.element.remove()
    problem.textContent = ''
    apply(undefined)
  }
  const element = h('fieldset', { class: 'filters' },
    h('legend', {}, 'Filter'),
    list,
    h('div', { class: 'buttons' },
      h('button', { type: 'button', onclick: addRow }, 'Add condition'),
      h('button', { type: 'button', class: 'primary', onclick: submit }, 'Apply filter'),
      h('button', { type: 'button', onclick: clear }, 'Clear filter')),
    problem)
  return { element, read }
}
