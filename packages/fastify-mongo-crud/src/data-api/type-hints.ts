import type { TSchema } from 'typebox'
import { isRecord } from '../is-record.js'

/**
 * Which BSON type a value of the model stands for, where its JSON form does not say: the routes keep
 * an ObjectId reference as 24-hex text, a `date-time` as ISO text, a `byte` field as base64 text, and
 * a number is a number whatever its declared width. Canonical Extended JSON answers write them as the
 * types they stand for (`$oid`, `$date`, `$binary`, `$numberInt`/`$numberLong`/`$numberDouble`), read
 * from the model's JSON Schema: `format: objectid`, `date-time`, `byte` (or `contentEncoding: base64`),
 * `int32`, `int64`, `double`/`float` (OpenAPI's formats).
 */
export type Hint =
  | { readonly kind: 'objectId' | 'date' | 'binary' | 'int32' | 'int64' | 'double' }
  | { readonly kind: 'object', readonly fields: ReadonlyMap<string, Hint> }
  | { readonly kind: 'array', readonly item: Hint }
  | undefined

type LeafKind = 'objectId' | 'date' | 'binary' | 'int32' | 'int64' | 'double'

const FORMATS: Readonly<Record<string, LeafKind>> = {
  objectid: 'objectId',
  'date-time': 'date',
  byte: 'binary',
  int32: 'int32',
  int64: 'int64',
  double: 'double',
  float: 'double',
}

/** The hints of a model, following `$ref`s to the models `refs` names (a cycle ends in no hint). */
export function hintsOf(schema: TSchema, refs: ReadonlyMap<string, TSchema>): Hint {
  return walk(schema as unknown as Record<string, unknown>, refs, new Set())
}

function walk(schema: unknown, refs: ReadonlyMap<string, TSchema>, seen: ReadonlySet<string>): Hint {
  if (!isRecord(schema)) return undefined
  const ref = schema['$ref']
  if (typeof ref === 'string') {
    const id = ref.replace(/#$/, '')
    const target = refs.get(id)
    return target === undefined || seen.has(id) ? undefined : walk(target, refs, new Set([...seen, id]))
  }
  const variants = schema['anyOf'] ?? schema['oneOf']
  if (Array.isArray(variants)) return variants.map((variant) => walk(variant, refs, seen)).reduce(merge)
  const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined
  if (format !== undefined) return { kind: format }
  if (schema['contentEncoding'] === 'base64') return { kind: 'binary' }
  if (isRecord(schema['properties'])) {
    const isDocument = typeof schema['$id'] === 'string' && schema['properties']['id'] !== undefined
    const fields = new Map<string, Hint>()
    for (const [name, sub] of Object.entries(schema['properties'])) {
      const hint = walk(sub, refs, seen)
      // A document's `id` is `_id` in the database, and in the Data API's documents.
      if (hint !== undefined) fields.set(name === 'id' && isDocument ? '_id' : name, hint)
    }
    return fields.size === 0 ? undefined : { kind: 'object', fields }
  }
  if (schema['type'] === 'array') {
    const item = walk(schema['items'], refs, seen)
    return item === undefined ? undefined : { kind: 'array', item }
  }
  return undefined
}

/** The hint of a value that may be either (a union): what both say, else nothing (a `null` variant says nothing). */
function merge(a: Hint, b: Hint): Hint {
  if (a === undefined) return b
  if (b === undefined) return a
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields)
    for (const [name, hint] of b.fields) fields.set(name, merge(fields.get(name), hint))
    return { kind: 'object', fields }
  }
  if (a.kind === 'array' && b.kind === 'array') return { kind: 'array', item: merge(a.item, b.item) }
  return a.kind === b.kind ? a : undefined
}

/** The hint at a field of an object hint (an array's items are reached through it, as MongoDB paths are). */
export function hintAt(hint: Hint, field: string): Hint {
  if (hint?.kind === 'array') return hintAt(hint.item, field)
  return hint?.kind === 'object' ? hint.fields.get(field) : undefined
}

/** The hint at a dotted path. */
export function hintAtPath(hint: Hint, path: readonly string[]): Hint {
  return path.reduce<Hint>((at, segment) => (at?.kind === 'array' && /^\d+$/.test(segment) ? at.item : hintAt(at, segment)), hint)
}
