import { Aggregator } from 'mingo/aggregator'
import { toValueKey } from '../bson/value-key.js'
import type { Found } from '../collection/collection-core.js'
import { type Document, isNonArrayObject } from '../document.js'
import { asServerError, badValueError, duplicateKeyError, immutableFieldError, locationError, mergeNoMatchError, typeMismatchError } from '../errors.js'
import { ID_INDEX } from '../indexes/index-catalog.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { toStored } from './out-stage.js'
import { type OutputResolver, parseTargetName } from './output-target.js'

type WhenMatched = 'replace' | 'keepExisting' | 'merge' | 'fail' | Document[]
type WhenNotMatched = 'insert' | 'discard' | 'fail'

interface MergeSpec {
  into: unknown
  on: string[]
  let: Document | undefined
  whenMatched: WhenMatched
  whenNotMatched: WhenNotMatched
}

const FIELDS = new Set(['into', 'on', 'let', 'whenMatched', 'whenNotMatched'])
const WHEN_MATCHED = new Set(['replace', 'keepExisting', 'merge', 'fail'])
const WHEN_NOT_MATCHED = new Set(['insert', 'discard', 'fail'])
/** The stages a `whenMatched` pipeline may hold: those of a pipeline-style update. */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith'])

/**
 * `$merge`: writes each result into the target collection, matched on `on` (default `_id`; other
 * fields need a unique index on exactly them, as on the server). One task of the target's write
 * queue, so other writers of the target wait; like MongoDB's, it is not atomic: the results
 * written before a failure stay.
 */
export async function writeMerge(value: unknown, results: Document[], resolveTarget: OutputResolver): Promise<void> {
  const spec = parseMerge(value)
  const name = parseTargetName(spec.into, '$merge.into')
  const core = resolveTarget(name.db, name.coll).core
  await core.write(async () => {
    const unique = core.indexes.list().filter((defined) => defined.unique).map((defined) => ({ name: defined.name, fields: Object.keys(defined.key) }))
    const index = matchIndex(spec.on, unique)
    for (const result of results) {
      const doc = toStored(result)
      const found = core.first(onFilter(doc, spec.on), undefined)
      if (!found) {
        if (spec.whenNotMatched === 'fail') throw mergeNoMatchError()
        if (spec.whenNotMatched === 'insert') await core.insert(doc)
        continue
      }
      if (spec.whenMatched === 'keepExisting') continue
      if (spec.whenMatched === 'fail') {
        throw duplicateKeyError(core.ns, index, Object.fromEntries(spec.on.map((field) => [field, valueAt(doc, field)])))
      }
      const after = matchedDocument(found, doc, result, spec)
      await core.commit(found[0], found[1], after)
    }
  })
}

function parseMerge(value: unknown): MergeSpec {
  if (typeof value === 'string') return { into: value, on: ['_id'], let: undefined, whenMatched: 'merge', whenNotMatched: 'insert' }
  if (!isNonArrayObject(value)) throw locationError(51182, `$merge only supports a string or object argument, not ${value === null ? 'null' : typeof value}`)
  const spec = value as Document
  for (const key of Object.keys(spec)) if (!FIELDS.has(key)) throw locationError(40415, `BSON field '$merge.${key}' is an unknown field.`)
  if (spec['into'] === undefined) throw locationError(40414, "BSON field '$merge.into' is missing but a required field")
  if (typeof spec['into'] !== 'string' && !isNonArrayObject(spec['into'])) {
    throw locationError(51178, "$merge 'into' field must be either a string or an object")
  }
  const whenMatched = spec['whenMatched'] ?? 'merge'
  if (Array.isArray(whenMatched)) checkUpdatePipeline(whenMatched)
  else checkEnum(whenMatched, 'whenMatched', WHEN_MATCHED)
  const whenNotMatched = spec['whenNotMatched'] ?? 'insert'
  checkEnum(whenNotMatched, 'whenNotMatched', WHEN_NOT_MATCHED)
  const letSpec = spec['let']
  if (letSpec !== undefined && letSpec !== null) {
    if (typeof letSpec !== 'object' || Array.isArray(letSpec)) throw typeMismatchError("BSON field '$merge.let' is the wrong type, expected type 'object'")
    if (!Array.isArray(whenMatched)) throw locationError(51199, `Cannot use 'let' variables with 'whenMatched: ${whenMatched as string}' mode`)
  }
  return { into: spec['into'], on: parseOn(spec['on']), let: (letSpec ?? undefined) as Document | undefined, whenMatched: whenMatched as WhenMatched, whenNotMatched: whenNotMatched as WhenNotMatched }
}

function checkEnum(value: unknown, field: string, allowed: ReadonlySet<string>): void {
  if (typeof value !== 'string') throw locationError(51191, `$merge.${field} must be a string or an array`)
  if (!allowed.has(value)) throw badValueError(`Enumeration value '${value}' for field '$merge.${field}' is not a valid value.`)
}

function checkUpdatePipeline(pipeline: unknown[]): void {
  for (const stage of pipeline) {
    const names = typeof stage === 'object' && stage !== null ? Object.keys(stage) : []
    if (names.length !== 1 || !UPDATE_STAGES.has(names[0]!)) {
      throw badValueError(`$merge's whenMatched pipeline may only hold ${[...UPDATE_STAGES].join(', ')} stages; got ${JSON.stringify(stage)}`)
    }
  }
}

function parseOn(value: unknown): string[] {
  if (value === undefined || value === null) return ['_id']
  const fields = typeof value === 'string' ? [value] : value
  if (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string')) {
    throw locationError(51186, "$merge 'on' field must be either a string or an array of strings")
  }
  if (fields.length === 0) throw locationError(51187, "If explicitly specifying $merge 'on', must include at least one field")
  return [...new Set(fields as string[])]
}

/** The index `on` relies on: `_id`'s, or a unique index on exactly the `on` fields (51183 otherwise). */
function matchIndex(on: string[], unique: readonly { name: string, fields: string[] }[]): string {
  if (on.length === 1 && on[0] === '_id') return ID_INDEX
  const wanted = [...on].sort().join('\0')
  const index = unique.find((candidate) => [...candidate.fields].sort().join('\0') === wanted)
  if (!index) throw locationError(51183, 'Cannot find index to verify that join fields will be unique')
  return index.name
}

/** `{ field: { $eq: value } }` for each `on` field; a missing, null or array value cannot be matched. */
function onFilter(doc: Document, on: string[]): Document {
  const filter: Document = {}
  for (const field of on) {
    const value = valueAt(doc, field)
    if (value === undefined || value === null || Array.isArray(value)) {
      throw locationError(51132, "$merge write error: 'on' field cannot be missing, null, undefined or an array")
    }
    filter[field] = { $eq: value }
  }
  return filter
}

function valueAt(doc: Document, path: string): unknown {
  let value: unknown = doc
  for (const part of path.split('.')) {
    if (!isNonArrayObject(value)) return undefined
    value = (value as Document)[part]
  }
  return value
}

/** The matched document after `whenMatched` (replace, merge or a pipeline), keeping its `_id`. */
function matchedDocument([, before]: Found, doc: Document, result: Document, spec: MergeSpec): Document {
  let after: Document
  if (spec.whenMatched === 'replace') after = { ...doc }
  else if (spec.whenMatched === 'merge') after = { ...before, ...doc }
  else after = runWhenMatchedPipeline(before, result, spec)
  // `_id` was generated for a result without one; the matched document keeps its own.
  if (result['_id'] === undefined || after['_id'] === undefined) after['_id'] = before['_id']
  if (toValueKey(after['_id']) !== toValueKey(before['_id'])) {
    throw immutableFieldError("$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'")
  }
  const { _id, ...fields } = after
  return toStored({ _id, ...fields })
}

/** Runs the `whenMatched` pipeline over the matched document, `$$new` (and `let`'s variables) bound to the result. */
function runWhenMatchedPipeline(before: Document, result: Document, spec: MergeSpec): Document {
  try {
    const options = { ...MINGO_OPTIONS, variables: { new: result } }
    const variables = spec.let ? { new: result, ...(new Aggregator([{ $replaceWith: spec.let }], options).run([result])[0] as Document) } : { new: result }
    const [after] = new Aggregator(spec.whenMatched as Document[], { ...MINGO_OPTIONS, variables }).run([before]) as Document[]
    return after ?? {}
  } catch (error) {
    throw asServerError(error)
  }
}
