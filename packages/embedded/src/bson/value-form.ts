import { type BSON, Double, Int32, type Long } from 'mongodb'
import { isPlainObject } from '../document.js'
import { heldDouble, isInt32Number } from '../numbers/numeric-type.js'

/**
 * The forms in which the engine hands numbers out. Inside, it holds every numeric BSON type apart
 * (numeric-type.ts: `held`), and the wire server sends that form as it is. Callers of the engine's
 * API get what the driver's read options give them:
 * - `promoted` (the driver's default): Int32 and Double as JS numbers, a Long as a number when it is
 *   within 2^53 (else a Long), a Decimal128 as it is;
 * - `longs` (`promoteLongs: false`): as promoted, but every Long a Long;
 * - `wrapped` (`promoteValues: false`): every number as its type's class, Int32, Long or Double.
 */
export type ValueForm = 'held' | 'promoted' | 'longs' | 'wrapped'

/** An engine-internal read option (not part of the public types): answer values in the held form. */
export const AS_HELD: unique symbol = Symbol('fastify-mongo-crud.asHeld')

/** The driver's read options the engine honours, and the engine's own. */
export interface PromoteOptions {
  /** As the driver's: false answers every number as its BSON type's class. */
  promoteValues?: boolean | undefined
  /** As the driver's: false answers every int64 as a Long. */
  promoteLongs?: boolean | undefined
  [AS_HELD]?: true
}

/** The read options of `options` that choose a form, to hand on to another read (a view's). */
export function promoteOptionsOf(options: PromoteOptions): PromoteOptions {
  const out: PromoteOptions = {}
  if (options.promoteValues !== undefined) out.promoteValues = options.promoteValues
  if (options.promoteLongs !== undefined) out.promoteLongs = options.promoteLongs
  if (options[AS_HELD]) out[AS_HELD] = true
  return out
}

export function valueFormOf(options: PromoteOptions | undefined): ValueForm {
  if (options?.[AS_HELD]) return 'held'
  if (options?.promoteValues === false) return 'wrapped'
  return options?.promoteLongs === false ? 'longs' : 'promoted'
}

/** BSON's decoder options that give each form straight from stored bytes. */
export const DESERIALIZE_AS: Record<Exclude<ValueForm, 'held'>, BSON.DeserializeOptions> = {
  promoted: {},
  longs: { promoteLongs: false },
  wrapped: { promoteValues: false },
}

/** A held value (a document, an array or a scalar) in `form`: copied where it changes, the rest shared. */
export function inForm<T>(value: T, form: ValueForm): T {
  switch (form) {
    case 'held':
      return value
    case 'promoted':
      return convert(value, promote) as T
    case 'longs':
      return convert(value, promoteDoubles) as T
    case 'wrapped':
      return convert(value, wrap) as T
  }
}

/** A value BSON decoded with `promoteValues: false` in the held form: Int32 as numbers, Doubles as the engine holds them. */
export function heldFromWrapped<T>(value: T): T {
  return convert(value, hold) as T
}

type Leaf = (value: unknown) => unknown

function bsonType(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { _bsontype?: unknown })._bsontype : undefined
}

function promote(value: unknown): unknown {
  switch (bsonType(value)) {
    case 'Double':
    case 'Int32':
      return (value as Double | Int32).value
    case 'Long': {
      const long = value as Long
      // As BSON's promoteLongs: from -2^53 to 2^53 a number, else a Long (the driver keeps it exact).
      const exact = long.toBigInt()
      return exact <= PROMOTED_LONG && exact >= -PROMOTED_LONG ? Number(exact) : long
    }
  }
  return value
}

const PROMOTED_LONG = 2n ** 53n

function promoteDoubles(value: unknown): unknown {
  const type = bsonType(value)
  return type === 'Double' || type === 'Int32' ? (value as Double | Int32).value : value
}

function wrap(value: unknown): unknown {
  if (typeof value === 'number') return isInt32Number(value) ? new Int32(value) : new Double(value)
  return value
}

function hold(value: unknown): unknown {
  switch (bsonType(value)) {
    case 'Int32':
      return (value as Int32).value
    case 'Double':
      return heldDouble((value as Double).value)
    case 'BSONSymbol':
      // What BSON's default decoding makes of a symbol: its string.
      return String((value as { value: unknown }).value)
  }
  return value
}

/** `leaf` applied to every value under documents and arrays; a container is copied only if something in it changed. */
function convert(value: unknown, leaf: Leaf): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      const converted = convert(item, leaf)
      if (converted !== item) {
        out ??= value.slice()
        out[i] = converted
      }
    }
    return out ?? value
  }
  if (isPlainObject(value)) {
    let out: Record<string, unknown> | undefined
    for (const key of Object.keys(value)) {
      const field = value[key]
      const converted = convert(field, leaf)
      if (converted === field) continue
      out ??= { ...value }
      // `__proto__` is an own field like any other, never the prototype.
      Object.defineProperty(out, key, { value: converted, writable: true, enumerable: true, configurable: true })
    }
    return out ?? value
  }
  return leaf(value)
}
