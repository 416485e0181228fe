import { invalidFilter } from '../errors.js'
import { isRecord } from '../is-record.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { isObjectId, isObjectIdHex, objectIdHex } from '../shapes/object-id.js'
import { checkClientKey, checkClientPath, checkReference, type ReferenceGuard } from './check-client-path.js'
import type { Condition, Filter, FilterValue } from './filter.js'
import { checkClientRegex } from './regex-safety.js'

/**
 * The closed filter grammar. A client's `filters` JSON is parsed into our own AST and never handed to
 * the database as is: only allowlisted operators, only visible fields, values checked against each
 * field's type, and bounded in size, so no query shape a client sends can run code, reach hidden
 * fields or exhaust the server.
 */
export interface FilterLimits {
  maxDepth: number
  maxNodes: number
  maxIn: number
  maxRegexLength: number
  /** The regex options a client may use, a subset of `imsx`. */
  regexOptions: string
}

export interface FilterContext {
  /** Fields a client may name (the output model's, unless `filterable` says otherwise). */
  visible: ShapeNode
  /** Field types for value checks (the input model's: it knows which fields hold ObjectIds). */
  typed: ShapeNode
  limits: FilterLimits
  /** Top-level fields clients may not name (populated references the caller may not follow); never set for a scope (server code). */
  guard?: ReferenceGuard | undefined
}

const LOGICAL = new Set(['$and', '$or', '$nor'])
const COMPARISON = { $eq: 'eq', $ne: 'ne', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' } as const
const LIST = { $in: 'in', $nin: 'nin', $all: 'all' } as const

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Parses the raw `filters` query parameter; `undefined` when absent (match everything). */
export function parseFilter(raw: string | undefined, context: FilterContext): Filter | undefined {
  if (raw === undefined || raw === '') return undefined
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    throw invalidFilter('Invalid JSON in filters parameter')
  }
  return parseFilterObject(json, context)
}

/** Parses an already-decoded filter object (a client's, or the router's own scope). */
export function parseFilterObject(json: unknown, context: FilterContext): Filter | undefined {
  if (!isRecord(json)) throw invalidFilter('filters must be a JSON object')
  const parser = new FilterParser(context)
  // Decoded JSON (or a scope written as JSON would be): its values are Json.
  const filter = parser.document(json as Record<string, Json>, context.visible, context.typed, 1)
  return filter.kind === 'and' && filter.items.length === 0 ? undefined : filter
}

class FilterParser {
  private nodes = 0
  constructor(private readonly context: FilterContext) {}

  /** A filter document: field conditions and logical operators, ANDed together. */
  document(json: Record<string, Json>, visible: ShapeNode, typed: ShapeNode, depth: number): Filter {
    this.enter(depth)
    const items: Filter[] = []
    for (const [key, value] of Object.entries(json)) {
      checkKey(key)
      if (LOGICAL.has(key)) items.push(this.logical(key, value, visible, typed, depth))
      else if (key.startsWith('$')) throw invalidFilter(`filters: operator ${key} is not allowed`)
      else items.push(this.field(key, value, visible, typed, depth))
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items }
  }

  private logical(key: string, value: Json, visible: ShapeNode, typed: ShapeNode, depth: number): Filter {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isRecord)) {
      throw invalidFilter(`filters: ${key} takes a non-empty array of filter objects`)
    }
    const items = value.map((item) => this.document(item as Record<string, Json>, visible, typed, depth + 1))
    return { kind: key.slice(1) as 'and' | 'or' | 'nor', items }
  }

  private field(key: string, value: Json, visible: ShapeNode, typed: ShapeNode, depth: number): Filter {
    this.enter(depth)
    const segments = checkClientPath('filters', key)
    // The AST names the identifier `id`, as clients do. Row scopes are trusted server code written
    // in MongoDB's terms (`_id`, ObjectId values): they enter the AST through this same parser, so
    // their `_id` becomes `id` here (and their ObjectIds hex in `value`), and the AST speaks one
    // language; the store alone turns it back. The shapes name the identifier `_id`.
    const identifier = (segments[0] === 'id' || segments[0] === '_id') && visible.kind === 'object' && visible.isDocument
    const path = identifier ? ['id', ...segments.slice(1)].join('.') : key
    const shapePath = identifier ? ['_id', ...segments.slice(1)] : segments
    // Same answer for hidden and non-existent fields: a client cannot probe what exists.
    const seen = nodeAt(visible, shapePath)
    if (seen === undefined) throw invalidFilter(`filters: field "${key}" is not filterable`)
    // A path of the document itself, at any depth of $and, $or and $nor (not a field of an $elemMatch item).
    if (visible === this.context.visible) checkReference('filters', key, shapePath[0]!, this.context.guard)
    const node = nodeAt(typed, shapePath) ?? seen
    if (isRecord(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      return { kind: 'field', path, conditions: this.conditions(key, value, node, seen, depth + 1) }
    }
    this.checkVisibleLiteral(key, value, seen, depth + 1)
    return { kind: 'field', path, conditions: [{ op: 'eq', value: this.value(key, value, node, depth + 1) }] }
  }

  /** An operator object such as `{ "$gt": 3, "$lt": 9 }` applied to one field. */
  private conditions(key: string, ops: Record<string, Json>, node: ShapeNode, seen: ShapeNode, depth: number): Condition[] {
    this.enter(depth)
    const conditions: Condition[] = []
    for (const [op, operand] of Object.entries(ops)) {
      checkKey(op)
      if (!op.startsWith('$')) throw invalidFilter(`filters: "${key}" mixes operators and field names`)
      if (op in COMPARISON) {
        this.checkVisibleLiteral(key, operand, seen, depth + 1)
        conditions.push({ op: COMPARISON[op as keyof typeof COMPARISON], value: this.value(key, operand, node, depth + 1) })
      } else if (op in LIST) {
        if (!Array.isArray(operand)) throw invalidFilter(`filters: ${op} on "${key}" takes an array`)
        if (operand.length > this.context.limits.maxIn) {
          throw invalidFilter(`filters: ${op} on "${key}" has ${operand.length} values, more than the limit of ${this.context.limits.maxIn}`)
        }
        // The list itself is no level: its values are read at depth + 1, as a single operand is.
        this.checkVisibleLiteral(key, operand, seen, depth)
        const values = operand.map((v) => this.value(key, v, node, depth + 1))
        conditions.push({ op: LIST[op as keyof typeof LIST], values })
      } else if (op === '$exists') {
        if (typeof operand !== 'boolean') throw invalidFilter(`filters: $exists on "${key}" takes true or false`)
        conditions.push({ op: 'exists', value: operand })
      } else if (op === '$size') {
        if (typeof operand !== 'number' || !Number.isInteger(operand) || operand < 0) {
          throw invalidFilter(`filters: $size on "${key}" takes a non-negative integer`)
        }
        conditions.push({ op: 'size', value: operand })
      } else if (op === '$regex') {
        conditions.push(this.regex(key, operand, ops['$options'], node))
      } else if (op === '$options') {
        if (!('$regex' in ops)) throw invalidFilter(`filters: $options on "${key}" needs $regex`)
      } else if (op === '$not') {
        if (!isRecord(operand) || !Object.keys(operand).every((k) => k.startsWith('$')) || Object.keys(operand).length === 0) {
          throw invalidFilter(`filters: $not on "${key}" takes an operator object`)
        }
        conditions.push({ op: 'not', conditions: this.conditions(key, operand, node, seen, depth + 1) })
      } else if (op === '$elemMatch') {
        conditions.push(this.elemMatch(key, operand, node, seen, depth + 1))
      } else {
        throw invalidFilter(`filters: operator ${op} is not allowed`)
      }
    }
    return conditions
  }

  private regex(key: string, pattern: Json, options: Json | undefined, node: ShapeNode): Condition {
    const { maxRegexLength, regexOptions } = this.context.limits
    if (typeof pattern !== 'string') throw invalidFilter(`filters: $regex on "${key}" takes a string`)
    if (pattern.length > maxRegexLength) {
      throw invalidFilter(`filters: $regex on "${key}" is longer than the limit of ${maxRegexLength} characters`)
    }
    const flags = options ?? ''
    if (typeof flags !== 'string' || [...flags].some((f) => !regexOptions.includes(f)) || new Set(flags).size !== flags.length) {
      throw invalidFilter(`filters: $options on "${key}" may only combine the letters "${regexOptions}"`)
    }
    if (!acceptsStrings(node)) throw invalidFilter(`filters: $regex needs a text field, and "${key}" is not one`)
    checkClientRegex(key, pattern, flags)
    return { op: 'regex', pattern, options: flags }
  }

  private elemMatch(key: string, operand: Json, node: ShapeNode, seen: ShapeNode, depth: number): Condition {
    if (node.kind !== 'array' && node.kind !== 'any') throw invalidFilter(`filters: $elemMatch needs an array field, and "${key}" is not one`)
    if (!isRecord(operand) || Object.keys(operand).length === 0) {
      throw invalidFilter(`filters: $elemMatch on "${key}" takes a non-empty object`)
    }
    const item: ShapeNode = node.kind === 'array' ? node.item : node
    const seenItem: ShapeNode = seen.kind === 'array' ? seen.item : seen
    if (Object.keys(operand).every((k) => k.startsWith('$') && !LOGICAL.has(k))) {
      return { op: 'elemMatchValue', conditions: this.conditions(key, operand, item, seenItem, depth) }
    }
    return { op: 'elemMatchDoc', filter: this.document(operand, seenItem, item, depth) }
  }

  /** A literal operand, checked against the field's type (ObjectIds become lowercase hex). */
  private value(key: string, value: Json, node: ShapeNode, depth: number): FilterValue {
    // Scalars are bounded by maxIn and the body size; only nested structure counts against the ceilings.
    if (typeof value === 'object' && value !== null) this.enter(depth)
    // JSON has no `undefined`; a scope holding one (a missing header) matches nothing before it gets
    // here (router-context.ts), so it never means "no condition" nor a null that matches missing fields.
    if (value === null) return null
    switch (node.kind) {
      case 'objectId':
        if (isObjectIdHex(value)) return value.toLowerCase()
        // A scope (server code) may hold ObjectIds, of whichever bson its app uses; JSON cannot.
        if (isObjectId(value)) return objectIdHex(value).toLowerCase()
        throw invalidFilter(`filters: "${key}" expects an ObjectId (24 hexadecimal characters)`)
      case 'array':
        // A scalar matches arrays containing it; an array literal is compared element by element.
        if (Array.isArray(value)) return value.map((v) => this.value(key, v, node.item, depth + 1))
        return this.value(key, value, node.item, depth)
      case 'scalar': {
        const type = typeof value
        if (!Array.isArray(value) && (type === 'string' || type === 'number' || type === 'boolean') && node.types.has(type)) {
          return value
        }
        throw invalidFilter(`filters: "${key}" expects a value of type ${[...node.types].join(' or ')}`)
      }
      case 'object': {
        if (isRecord(value)) return this.object(key, value, (name) => node.fields.get(name) ?? { kind: 'any' }, depth)
        // A union of an object and scalars (`string | { ... }`) takes a value of either.
        const type = typeof value
        if (!Array.isArray(value) && (type === 'string' || type === 'number' || type === 'boolean') && node.scalars?.has(type)) return value
        if (node.scalars === undefined) throw invalidFilter(`filters: "${key}" expects an object`)
        throw invalidFilter(`filters: "${key}" expects a value of type ${[...node.scalars, 'object'].join(' or ')}`)
      }
      case 'any':
        if (Array.isArray(value)) return value.map((v) => this.value(key, v, node, depth + 1))
        if (isRecord(value)) return this.object(key, value, () => node, depth)
        return value
    }
  }

  private object(key: string, value: Record<string, Json>, child: (name: string) => ShapeNode, depth: number): FilterValue {
    const out: Record<string, FilterValue> = {}
    for (const [name, sub] of Object.entries(value)) {
      checkKey(name)
      if (name.startsWith('$') || name.includes('.')) throw invalidFilter(`filters: key "${name}" is not allowed inside a value`)
      out[name] = this.value(`${key}.${name}`, sub, child(name), depth + 1)
    }
    return out
  }

  /**
   * A literal sub-document or array compared whole may only name fields the client can see. It is
   * checked before the value is read, so it stops at the depth limit itself: a literal thousands of
   * levels deep must be a 422, not a stack overflow.
   */
  private checkVisibleLiteral(key: string, value: Json | undefined, seen: ShapeNode, depth: number): void {
    if (typeof value !== 'object' || value === null) return
    this.checkDepth(depth)
    if (Array.isArray(value)) {
      const item = seen.kind === 'array' ? seen.item : seen
      for (const element of value) this.checkVisibleLiteral(key, element, item, depth + 1)
      return
    }
    for (const [name, sub] of Object.entries(value)) {
      const child = nodeAt(seen, [name])
      if (child === undefined) throw invalidFilter(`filters: field "${key}.${name}" is not filterable`)
      this.checkVisibleLiteral(`${key}.${name}`, sub, child, depth + 1)
    }
  }

  private enter(depth: number): void {
    this.checkDepth(depth)
    const { maxNodes } = this.context.limits
    this.nodes += 1
    if (this.nodes > maxNodes) throw invalidFilter(`filters: more than the limit of ${maxNodes} nodes`)
  }

  private checkDepth(depth: number): void {
    const { maxDepth } = this.context.limits
    if (depth > maxDepth) throw invalidFilter(`filters: nested deeper than the limit of ${maxDepth} levels`)
  }
}

/** Operators and the keys of values are checked by the same rule as every path a client names. */
function checkKey(key: string): void {
  checkClientKey('filters', key)
}

function acceptsStrings(node: ShapeNode): boolean {
  if (node.kind === 'array') return acceptsStrings(node.item)
  if (node.kind === 'object') return node.scalars?.has('string') === true
  return node.kind === 'any' || (node.kind === 'scalar' && node.types.has('string'))
}
