import { ObjectId } from 'mongodb'
import { copyThroughBson } from '../bson/bson-codec.js'
import { checkFieldPath } from '../check-field-path.js'
import { type Document, isPlainObject } from '../document.js'
import { failedToParseError } from '../errors.js'
import type { Variables } from '../query/let-variables.js'
import { applyUpdate } from './apply-update.js'
import { applyPipelineUpdate, isPipelineUpdate } from './pipeline-update.js'

/** True when `change` is an update document (`$set`...), false when it is a replacement. */
export function isOperatorUpdate(change: Document): boolean {
  const keys = Object.keys(change)
  const operators = keys.filter((k) => k.startsWith('$')).length
  if (operators > 0 && operators < keys.length) {
    throw failedToParseError('Update document mixes atomic operators and plain fields')
  }
  return keys.length > 0 && operators === keys.length
}

/** The update to run on an existing document: `$setOnInsert` only applies to inserts. */
export function withoutInsertOnly(update: Document): Document {
  const { $setOnInsert: _onInsert, ...rest } = update
  return rest
}

/**
 * The document an upsert inserts when nothing matched, as the server builds it: the equality
 * fields of the filter (top level and inside `$and`), then the update applied to them with
 * `$setOnInsert` counted as `$set` (or the update pipeline run on them, with `variables`, or the
 * replacement's fields), and a fresh ObjectId when none gave an `_id` (a null `_id` is kept).
 * `_id` comes first.
 */
export function buildUpsertDocument(filter: Document, change: Document | Document[], arrayFilters: Document[] | undefined, variables?: Variables): Document {
  const seed: Document = {}
  collectEqualities(filter, seed)
  let doc: Document
  if (isPipelineUpdate(change)) {
    doc = applyPipelineUpdate(seed, change, variables)
  } else if (isOperatorUpdate(change)) {
    const { $setOnInsert, ...rest } = change
    const update = $setOnInsert === undefined ? rest : { ...rest, $set: { ...(rest['$set'] as Document | undefined), ...($setOnInsert as Document) } }
    const setId = (update['$set'] as Document | undefined)?.['_id']
    // An `_id` the update sets on insert is the document's own, not a change to an immutable field.
    if (seed['_id'] === undefined && setId !== undefined) seed['_id'] = setId
    doc = copyThroughBson(seed)
    if (Object.keys(update).length > 0) applyUpdate(doc, update, {}, arrayFilters)
  } else {
    const replacement = copyThroughBson(change)
    doc = { ...replacement, _id: seed['_id'] !== undefined ? seed['_id'] : replacement['_id'] }
  }
  // Only a missing `_id` is generated: an explicit null (from the filter or the change) is stored as null.
  const { _id, ...fields } = doc
  return { _id: _id === undefined ? new ObjectId() : _id, ...fields }
}

function collectEqualities(filter: Document, out: Document): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) collectEqualities(part as Document, out)
      continue
    }
    if (key.startsWith('$')) continue
    checkFieldPath(key)
    const equal = equalityValue(value)
    if (equal !== NONE) setPath(out, key.split('.'), equal)
  }
}

const NONE = Symbol('none')

function equalityValue(value: unknown): unknown {
  if (value instanceof RegExp || (value as { _bsontype?: unknown } | null)?._bsontype === 'BSONRegExp') return NONE
  if (!isPlainObject(value)) return value
  const keys = Object.keys(value)
  if (!keys.some((k) => k.startsWith('$'))) return value
  const operators = value as Document
  if (keys.length === 1 && Object.hasOwn(operators, '$eq')) return operators['$eq']
  if (keys.length === 1 && Array.isArray(operators['$in']) && operators['$in'].length === 1) return operators['$in'][0]
  return NONE
}

function setPath(doc: Document, path: string[], value: unknown): void {
  let target = doc
  for (const segment of path.slice(0, -1)) {
    const next = target[segment]
    if (typeof next !== 'object' || next === null) target[segment] = {}
    target = target[segment] as Document
  }
  target[path[path.length - 1]!] = value
}
