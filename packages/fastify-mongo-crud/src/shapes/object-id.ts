import { createRequire } from 'node:module'
import { ObjectId as OwnObjectId } from 'mongodb'
import { newObjectId } from './new-object-id.js'

/**
 * The one place that knows what an ObjectId is. The router runs with whatever `mongodb` the app
 * passes its `Db` from (6 and 7 are both supported peers), and the bson of one major refuses to
 * serialize the other's ObjectIds ("Unsupported BSON version"). So ObjectIds are recognised by
 * their shape, never by `instanceof`, and new ones are built with the ObjectId class of the
 * driver behind the `db` handle (`objectIdsFor`), not with the one the router was built against.
 */

/** The text of an ObjectId: 24 hexadecimal characters, either case (the models' `pattern`, as a string). */
export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$'
/** The same, for the `objectid` format of the validator, the serializer and the output fit. */
export const OBJECT_ID_HEX = new RegExp(OBJECT_ID_PATTERN)

export function isObjectIdHex(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID_HEX.test(value)
}

/** An ObjectId of any bson major (or another tool's), by duck typing. */
interface ObjectIdLike {
  readonly _bsontype: 'ObjectId'
  toHexString(): string
}

export function isObjectId(value: unknown): value is ObjectIdLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { _bsontype?: unknown })._bsontype === 'ObjectId' &&
    typeof (value as { toHexString?: unknown }).toHexString === 'function'
  )
}

/**
 * The 24-hex text of an ObjectId as one flat string. bson 7 builds `toHexString()` by concatenating twelve
 * pieces: V8 keeps that as a tree of about six string nodes (some 230 bytes where the text takes 40), and a
 * populated page holds 100,000 of them per request. Every bson major has the 12 bytes as `id`.
 */
export function objectIdHex(id: ObjectIdLike): string {
  const bytes = (id as { id?: unknown }).id
  return bytes instanceof Uint8Array && bytes.length === 12 ? Buffer.from(bytes.buffer, bytes.byteOffset, 12).toString('hex') : id.toHexString()
}

/** The ObjectId constructor of one bson: both majors take a 24-hex string or 12 bytes. */
type ObjectIdClass = new (id: string | Uint8Array) => unknown

/** Builds the ObjectIds one store writes and queries with, in its driver's own bson. */
export interface ObjectIds {
  /** The ObjectId of a 24-hex string (checked by the caller). */
  fromHex(hex: string): unknown
  /** A fresh id for a document the server creates (new-object-id.ts says why not the driver's). */
  fresh(): unknown
}

/** Per handle class, its driver's ObjectId class, or null when no loaded module exports it. */
const classes = new WeakMap<object, ObjectIdClass | null>()

/**
 * The ObjectIds of the driver that made `db`. The driver is a CommonJS module, so whether the app
 * `import`s or `require`s it, it sits in Node's module cache: the module exporting the handle's class
 * also exports that driver's `ObjectId`. A handle no loaded module exports (the embedded engine, a
 * wrapper, a bundled app) gets the router's own `mongodb` ObjectId, as before.
 */
export function objectIdsFor(db: object): ObjectIds {
  const ObjectId = driverObjectIdClass(db) ?? (OwnObjectId as unknown as ObjectIdClass)
  return {
    fromHex: (hex) => new ObjectId(hex.toLowerCase()),
    fresh: () => new ObjectId(newObjectId()),
  }
}

function driverObjectIdClass(db: object): ObjectIdClass | undefined {
  const handleClass = Object.getPrototypeOf(db)?.constructor as object | undefined
  if (handleClass === undefined || handleClass === Object) return undefined
  const known = classes.get(handleClass)
  if (known !== undefined) return known ?? undefined
  const cache = createRequire(import.meta.url).cache
  for (const loaded of Object.values(cache)) {
    const exports = loaded?.exports as Record<string, unknown> | undefined
    if (exports === undefined || exports === null || typeof exports !== 'object') continue
    if (exports['Db'] !== handleClass || typeof exports['ObjectId'] !== 'function') continue
    const found = exports['ObjectId'] as ObjectIdClass
    classes.set(handleClass, found)
    return found
  }
  classes.set(handleClass, null)
  return undefined
}
