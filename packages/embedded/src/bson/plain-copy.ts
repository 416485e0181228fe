import type { Document } from '../document.js'

/** Containers deeper than this are left to BSON. */
const MAX_DEPTH = 4
/**
 * What a plain copy may hold in all: values (and keys) and UTF-16 units of strings and keys. Far below
 * BSON's 16 MiB (a unit takes at most 3 bytes of UTF-8, a value at most 21 bytes besides its name),
 * so a document copied here is one `encodeDocument` would never refuse for its size.
 */
const MAX_VALUES = 256
const MAX_UNITS = 64 * 1024
/** A UTF-16 surrogate: a lone one comes out of UTF-8 as U+FFFD, so a string holding one is left to BSON. */
const SURROGATE = /[\uD800-\uDFFF]/

/**
 * The copy BSON's round trip (bson-codec.ts `copyThroughBson`) would make of a small document of plain
 * values, made directly: plain objects and arrays of strings, booleans, null and numbers, which come
 * back equal (`undefined` comes back null, as BSON stores it). Undefined when the document holds
 * anything else (a BSON value, a Date, -0, a string with a surrogate, a key BSON would refuse or
 * change, a large value): the caller then goes through BSON. What a write's update document usually
 * is (`{ $set: { age: 42 } }`), copied in a fraction of an encode and a decode.
 */
export function plainCopy(doc: Document): Document | undefined {
  if (Array.isArray(doc)) return undefined
  const copy = copyValue(doc, 0, { values: 0, units: 0 })
  return copy === NOT_PLAIN || copy === null ? undefined : (copy as Document)
}

const NOT_PLAIN = Symbol('not plain')

interface Budget {
  values: number
  units: number
}

function copyValue(value: unknown, depth: number, budget: Budget): unknown {
  if (++budget.values > MAX_VALUES) return NOT_PLAIN
  switch (typeof value) {
    case 'string':
      budget.units += value.length
      return budget.units <= MAX_UNITS && !SURROGATE.test(value) ? value : NOT_PLAIN
    case 'boolean':
      return value
    case 'number':
      return Object.is(value, -0) ? NOT_PLAIN : value
    case 'undefined':
      return null
    case 'object':
      return value === null ? null : copyContainer(value, depth + 1, budget)
    default:
      return NOT_PLAIN
  }
}

function copyContainer(value: object, depth: number, budget: Budget): unknown {
  if (depth > MAX_DEPTH) return NOT_PLAIN
  if (Array.isArray(value)) {
    const out: unknown[] = []
    // A hole is written as null by BSON, like undefined.
    for (let i = 0; i < value.length; i++) {
      const item = copyValue(value[i], depth, budget)
      if (item === NOT_PLAIN) return NOT_PLAIN
      out.push(item)
    }
    return out
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN
  const out: Record<string, unknown> = {}
  for (const key in value) {
    budget.units += key.length
    if (budget.units > MAX_UNITS || key === '__proto__' || key === '_bsontype' || key.includes('\0') || SURROGATE.test(key)) return NOT_PLAIN
    const item = copyValue((value as Record<string, unknown>)[key], depth, budget)
    if (item === NOT_PLAIN) return NOT_PLAIN
    out[key] = item
  }
  return out
}
