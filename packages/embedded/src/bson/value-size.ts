/**
 * How big a value is, measured without ever walking past a cap: the memory an expression's result
 * takes (expression-memory.ts), and a lower bound of a document's BSON size (checked before the
 * driver's BSON library walks or serializes it, bson-codec.ts).
 *
 * Both walks are iterative (a value may nest deeper than the call stack) and stop as soon as the
 * total passes the cap. A value that holds one sub-value several times (a `$let` variable used
 * twice at each of 40 levels) counts it each time, as a document holding it would: its size grows
 * with the nesting, but a walk never visits more than about cap / 2 elements, so measuring costs
 * no more than the limit it enforces.
 */

/** One array element or document field, as MongoDB counts a value held in memory (`Value::getApproximateSize`, 16 bytes). */
export const ELEMENT_BYTES = 16

/** What one element costs in each measure, besides its name (for an array element, `index` bytes). */
interface ElementCosts {
  element: number
  index: number
  useBuilt: boolean
}

const MEMORY: ElementCosts = { element: ELEMENT_BYTES, index: 0, useBuilt: true }
/** In BSON, an element holds at least a type byte and the NUL ending its name; an array index is at least one digit. */
const BSON_AT_LEAST: ElementCosts = { element: 2, index: 1, useBuilt: false }

/**
 * The memory sizes of arrays the engine's bounded operators built, or a `$lookup` joined
 * (bounded-*.ts), measured then: nothing changes them afterwards. Reading their size back keeps a
 * `$reduce` that appends to its value from walking the whole value again at each step, and the
 * documents that share one array of matches from walking it once each.
 */
const built = new WeakMap<object, number>()

/** Remembers the memory size of an array an operator just built; returns the array. */
export function rememberSize<T>(value: T, bytes: number): T {
  if (typeof value === 'object' && value !== null) built.set(value, bytes)
  return value
}

/**
 * The memory `value` takes: 16 bytes per array element or field, plus each string's length (UTF-16
 * code units), a field name's length and the bytes of BSON values (ObjectId 12, Binary its length).
 * Returns a total above `cap` as soon as one is reached.
 */
export function memorySize(value: unknown, cap: number): number {
  return walk(value, cap, MEMORY)
}

/**
 * A lower bound of `doc`'s BSON size: each element's type byte, name and NUL, each string's length
 * (UTF-8 takes at least a byte per UTF-16 unit) and the bytes of BSON values. Returns a total above
 * `cap` as soon as one is reached; at or below `cap`, the document has at most `cap / 2` elements,
 * so the BSON library's own walk of it is bounded too.
 */
export function bsonSizeAtLeast(doc: unknown, cap: number): number {
  return walk(doc, cap, BSON_AT_LEAST)
}

function walk(root: unknown, cap: number, costs: ElementCosts): number {
  const pending: object[] = []
  let total = leafBytes(root, pending)
  while (pending.length > 0 && total <= cap) {
    const container = pending.pop() as Record<string, unknown> | unknown[]
    const known = costs.useBuilt ? built.get(container) : undefined
    if (known !== undefined) {
      total += known
    } else if (Array.isArray(container)) {
      for (let i = 0; i < container.length && total <= cap; i++) total += costs.element + costs.index + leafBytes(container[i], pending)
    } else {
      for (const key in container) {
        total += costs.element + key.length + leafBytes(container[key], pending)
        if (total > cap) break
      }
    }
  }
  return total
}

/** The bytes of a value that holds no other: strings, dates, BSON values; a container is queued for the walk instead. */
function leafBytes(value: unknown, pending: object[]): number {
  if (typeof value === 'string') return value.length
  if (typeof value !== 'object' || value === null) return 0
  if (value instanceof Date) return 8
  if (value instanceof RegExp) return value.source.length + value.flags.length
  if (ArrayBuffer.isView(value)) return value.byteLength
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (typeof bsonType === 'string') return bsonValueBytes(bsonType, value as Record<string, unknown>)
  pending.push(value)
  return 0
}

function bsonValueBytes(bsonType: string, value: Record<string, unknown>): number {
  switch (bsonType) {
    case 'ObjectId':
      return 12
    case 'Decimal128':
      return 16
    case 'Binary':
      return typeof value['position'] === 'number' ? value['position'] : 0
    case 'BSONRegExp':
      return String(value['pattern']).length + String(value['options']).length
    case 'Code':
      return String(value['code']).length
    case 'BSONSymbol':
      return String(value['value']).length
    case 'Long':
    case 'Timestamp':
    case 'Double':
      return 8
    case 'Int32':
      return 4
    default:
      // MinKey and MaxKey hold no bytes; a DBRef is counted as nothing (a lower bound all the same).
      return 0
  }
}
