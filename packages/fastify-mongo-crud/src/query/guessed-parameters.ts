import { guessedParameter } from '../errors.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { listQuerySchema } from './list-query.js'

/**
 * Query parameters a newcomer guesses (`?city=Lyon`, `?age__gt=3`, `?page=2`), refused with the form that
 * means what they meant. Left unread, each answered 200 with an unfiltered or first page: a result that
 * looks right and is not. Parameters the lists do not read and that name no field stay ignored, so cache
 * busters (`?_=1700000000`) and tracking parameters keep working.
 */

/** What the list routes (list-query.ts) and `_groups` (group-query.ts) read. */
const READ = new Set([...Object.keys(listQuerySchema.properties), 'by', 'metrics'])

/** Operator suffixes of other APIs (`age__gt`, `age[gt]`): Django, json-server, qs. */
const OPERATORS: Readonly<Record<string, string>> = {
  eq: '$eq',
  ne: '$ne',
  gt: '$gt',
  gte: '$gte',
  lt: '$lt',
  lte: '$lte',
  in: '$in',
  nin: '$nin',
  exists: '$exists',
  regex: '$regex',
}

/** Paging and sorting parameters of other APIs, and what ours are. */
const PAGING: Readonly<Record<string, string>> = {
  page: 'pages are read with skip and limit (skip=20&limit=20 is the second page of 20), or with the cursor in the Link header of the previous page',
  per_page: 'the page size is limit',
  page_size: 'the page size is limit',
  pageSize: 'the page size is limit',
  size: 'the page size is limit',
  offset: 'the offset is skip',
  sort: 'the sort is sort_by=<field> with order_by=ASC|DESC',
  order: 'the sort is sort_by=<field> with order_by=ASC|DESC',
}

/** 400 for the first parameter that names a field of `visible` (with or without an operator) or another API's paging. */
export function refuseGuessedParameters(query: object, visible: ShapeNode): void {
  for (const [name, value] of Object.entries(query)) {
    if (READ.has(name)) continue
    const paging = PAGING[name]
    if (paging !== undefined) throw guessedParameter(`${name} is not a query parameter: ${paging}`)
    const guess = fieldGuess(name, visible)
    if (guess === undefined) continue
    const filter = { [guess.path]: guess.operator === undefined ? typed(value, guess.node) : { [guess.operator]: operand(guess.operator, value, guess.node) } }
    const json = JSON.stringify(filter)
    throw guessedParameter(`${name} is not a query parameter: filter with filters=${json} (URL-encoded: filters=${encodeURIComponent(json)})`)
  }
}

/** The field a parameter names, and the operator of its suffix: `age`, `age__gt`, `age[gt]`, `address.city`. */
function fieldGuess(name: string, visible: ShapeNode): { path: string, operator?: string, node: ShapeNode } | undefined {
  const suffixed = /^(.+?)(?:__([a-z]+)|\[([a-z]+)\])$/.exec(name)
  const path = suffixed?.[1] ?? name
  const operator = suffixed === null ? undefined : OPERATORS[suffixed[2] ?? suffixed[3] ?? '']
  if (suffixed !== null && operator === undefined) return undefined
  const [field = ''] = path.split('.')
  // Declared fields only: an open model would otherwise claim every parameter, cache busters included.
  const declared = field === 'id' || (visible.kind === 'object' && visible.fields.has(field))
  const node = !declared ? undefined : path === 'id' ? ({ kind: 'objectId' } as const) : nodeAt(visible, path.split('.'))
  if (node === undefined) return undefined
  return operator === undefined ? { path, node } : { path, operator, node }
}

/** The operand as the field's type reads it: numbers and booleans for such fields, a list for `$in`. */
function operand(operator: string, value: unknown, node: ShapeNode): unknown {
  if (operator === '$in' || operator === '$nin') return String(value).split(',').map((item) => typed(item, node))
  if (operator === '$exists') return value !== 'false' && value !== '0'
  return operator === '$regex' ? String(value) : typed(value, node)
}

function typed(value: unknown, node: ShapeNode): unknown {
  const text = Array.isArray(value) ? String(value[0]) : String(value)
  if (node.kind !== 'scalar') return text
  if (node.types.has('number') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text)
  if (node.types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true'
  return text
}
