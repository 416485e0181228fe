import { applyUpdate, buildReplacement } from './apply-update.js'
import { copyThroughBson, decodeDocument, encodeDocument } from './bson-codec.js'
import { buildUpsertDocument, isOperatorUpdate, withoutInsertOnly } from './build-upsert.js'
import { checkId } from './check-id.js'
import { toCollation } from './collation.js'
import { refuseUncollatedUpdate } from './collation-refusals.js'
import type { CollectionCore, Found } from './collection-core.js'
import type { CollationOptions, Document } from './document.js'
import { failedToParseError } from './errors.js'
import type { SortSpec } from './sort-documents.js'

export interface ModifyOptions {
  upsert?: boolean | undefined
  arrayFilters?: Document[] | undefined
  maxTimeMS?: number | undefined
  /** Match (and, for findAndModify, sort) comparing strings in this collation's order. */
  collation?: CollationOptions | undefined
}

export interface UpdateResult {
  matchedCount: number
  modifiedCount: number
  upsertedId?: unknown
}

/**
 * Applies `change` (an update document or a replacement) to the first match, or to every match
 * when `multi`; inserts the upsert document when nothing matched and `upsert` is set. Runs as one
 * queued write: matches are collected first, so a document is never changed twice.
 */
export function updateDocuments(core: CollectionCore, filter: Document, change: Document, multi: boolean, options: ModifyOptions = {}): Promise<UpdateResult> {
  const operators = isOperatorUpdate(change)
  if (multi && !operators) throw failedToParseError('multi update is not supported for replacement-style update')
  const collation = toCollation(options.collation)
  if (collation && (operators || Array.isArray(change))) refuseUncollatedUpdate(change, options.arrayFilters)
  return core.write(async () => {
    const found = multi ? core.matching(filter, options.maxTimeMS, collation) : [core.first(filter, options.maxTimeMS, undefined, collation)].filter((f) => f !== undefined)
    if (found.length === 0) {
      if (!options.upsert) return { matchedCount: 0, modifiedCount: 0 }
      const upsertedId = await insertUpsert(core, filter, change, options)
      return { matchedCount: 0, modifiedCount: 0, upsertedId }
    }
    let modifiedCount = 0
    for (const entry of found) {
      if (await changeOne(core, entry, filter, change, operators, options)) modifiedCount++
    }
    return { matchedCount: found.length, modifiedCount }
  })
}

export interface FindAndModifyOptions extends ModifyOptions {
  sort?: SortSpec | undefined
  /** Return the document as it is after the change (true) or before it (false, the default). */
  returnNew?: boolean | undefined
}

export interface FindAndModifyResult {
  value: Document | null
  /** Whether a document was found or inserted. */
  n: number
  updatedExisting: boolean
  upsertedId?: unknown
}

/**
 * findAndModify: changes (or, with `change` null, removes) the first match in `sort` order and
 * returns it before or after the change.
 */
export function findAndModify(core: CollectionCore, filter: Document, change: Document | null, options: FindAndModifyOptions = {}): Promise<FindAndModifyResult> {
  const operators = change !== null && isOperatorUpdate(change)
  const collation = toCollation(options.collation)
  if (collation && change !== null && (operators || Array.isArray(change))) refuseUncollatedUpdate(change, options.arrayFilters)
  return core.write(async () => {
    const found = core.first(filter, options.maxTimeMS, options.sort, collation)
    if (!found) {
      if (change === null || !options.upsert) return { value: null, n: 0, updatedExisting: false }
      const upsertedId = await insertUpsert(core, filter, change, options)
      const inserted = options.returnNew ? core.first({ _id: upsertedId }, undefined) : undefined
      return { value: inserted?.[1] ?? null, n: 1, updatedExisting: false, upsertedId }
    }
    if (change === null) {
      await core.remove([found])
      return { value: found[1], n: 1, updatedExisting: false }
    }
    const before = copyThroughBson(found[1])
    const after = await changeOne(core, found, filter, change, operators, options, true)
    return { value: options.returnNew ? after : before, n: 1, updatedExisting: true }
  })
}

async function insertUpsert(core: CollectionCore, filter: Document, change: Document, options: ModifyOptions): Promise<unknown> {
  const doc = copyThroughBson(buildUpsertDocument(filter, change, options.arrayFilters))
  checkId(doc['_id'])
  await core.insert(doc)
  return doc['_id']
}

function changeOne(core: CollectionCore, entry: Found, filter: Document, change: Document, operators: boolean, options: ModifyOptions): Promise<boolean>
function changeOne(core: CollectionCore, entry: Found, filter: Document, change: Document, operators: boolean, options: ModifyOptions, returnAfter: true): Promise<Document>
async function changeOne(core: CollectionCore, [key, before]: Found, filter: Document, change: Document, operators: boolean, options: ModifyOptions, returnAfter = false): Promise<boolean | Document> {
  let after: Document
  let changed = true
  if (operators) {
    after = decodeDocument(encodeDocument(before))
    const update = withoutInsertOnly(change)
    changed = Object.keys(update).length > 0 && applyUpdate(after, update, filter, options.arrayFilters)
  } else {
    after = buildReplacement(before, change)
  }
  const modified = changed && (await core.commit(key, before, after))
  return returnAfter ? after : modified
}
