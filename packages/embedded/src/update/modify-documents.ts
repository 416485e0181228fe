import { copyThroughBson, decodeDocument, encodeDocument } from '../bson/bson-codec.js'
import { storedDocument } from '../bson/stored-document.js'
import { toCollation } from '../collation/collation.js'
import { refuseUncollatedUpdate } from '../collation/collation-refusals.js'
import { checkId } from '../collection/check-id.js'
import type { CollectionCore, Found } from '../collection/collection-core.js'
import type { CollationOptions, Document } from '../document.js'
import { failedToParseError } from '../errors.js'
import { bindVariables, resolveLet, type Variables } from '../query/let-variables.js'
import type { SortSpec } from '../sort/sort-documents.js'
import { applyUpdate, buildReplacement } from './apply-update.js'
import { buildUpsertDocument, isOperatorUpdate, withoutInsertOnly } from './build-upsert.js'
import { matchesInSlices } from './paced-matches.js'
import { applyPipelineUpdate, checkPipelineUpdate, isPipelineUpdate } from './pipeline-update.js'

export interface ModifyOptions {
  upsert?: boolean | undefined
  arrayFilters?: Document[] | undefined
  maxTimeMS?: number | undefined
  /** Variables for `$$name` in the filter's `$expr` and in an update pipeline: name → expression, evaluated once. */
  let?: Document | undefined
  /** Match (and, for findAndModify, sort) comparing strings in this collation's order. */
  collation?: CollationOptions | undefined
}

/** An update document (`{ $set: ... }`), an update pipeline (`[{ $set: ... }]`) or a replacement. */
export type Change = Document | Document[]

type Kind = 'operators' | 'pipeline' | 'replacement'

/** What `change` is, after the server's checks on its shape (a pipeline with arrayFilters is refused). */
function kindOf(change: Change, options: ModifyOptions): Kind {
  if (!isPipelineUpdate(change)) return isOperatorUpdate(change) ? 'operators' : 'replacement'
  checkPipelineUpdate(change)
  if (options.arrayFilters !== undefined) throw failedToParseError('arrayFilters may not be specified for pipeline-style updates')
  return 'pipeline'
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
export function updateDocuments(core: CollectionCore, filter: Document, change: Change, multi: boolean, options: ModifyOptions = {}): Promise<UpdateResult> {
  const kind = kindOf(change, options)
  if (multi && kind === 'replacement') throw failedToParseError('multi update is not supported for replacement-style update')
  const collation = toCollation(options.collation)
  if (collation && kind !== 'replacement') refuseUncollatedUpdate(change, options.arrayFilters)
  const variables = resolveLet(options.let, 'update')
  const matchFilter = bindVariables(filter, variables)
  return core.write(async () => {
    const found = multi ? await matchesInSlices(core, matchFilter, options.maxTimeMS, collation) : [core.first(matchFilter, options.maxTimeMS, undefined, collation)].filter((f) => f !== undefined)
    if (found.length === 0) {
      if (!options.upsert) return { matchedCount: 0, modifiedCount: 0 }
      const upsertedId = await insertUpsert(core, filter, change, options, variables)
      return { matchedCount: 0, modifiedCount: 0, upsertedId }
    }
    let modifiedCount = 0
    for (const entry of found) {
      if (await changeOne(core, entry, filter, change, kind, options, variables)) modifiedCount++
    }
    return { matchedCount: found.length, modifiedCount }
  })
}

interface FindAndModifyOptions extends ModifyOptions {
  sort?: SortSpec | undefined
  /** Return the document as it is after the change (true) or before it (false, the default). */
  returnNew?: boolean | undefined
}

interface FindAndModifyResult {
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
export function findAndModify(core: CollectionCore, filter: Document, change: Change | null, options: FindAndModifyOptions = {}): Promise<FindAndModifyResult> {
  const kind = change === null ? 'replacement' : kindOf(change, options)
  const collation = toCollation(options.collation)
  if (collation && change !== null && kind !== 'replacement') refuseUncollatedUpdate(change, options.arrayFilters)
  const variables = resolveLet(options.let, 'findAndModify')
  return core.write(async () => {
    const found = core.first(bindVariables(filter, variables), options.maxTimeMS, options.sort, collation)
    if (!found) {
      if (change === null || !options.upsert) return { value: null, n: 0, updatedExisting: false }
      const upsertedId = await insertUpsert(core, filter, change, options, variables)
      const inserted = options.returnNew ? core.first({ _id: upsertedId }, undefined) : undefined
      return { value: inserted?.[1] ?? null, n: 1, updatedExisting: false, upsertedId }
    }
    if (change === null) {
      await core.remove([found])
      return { value: found[1], n: 1, updatedExisting: false }
    }
    // A copy of the document as found only when it is the answer: the change works on its own copy.
    const before = options.returnNew ? undefined : copyThroughBson(found[1])
    const after = await changeOne(core, found, filter, change, kind, options, variables, true)
    return { value: options.returnNew ? after : before!, n: 1, updatedExisting: true }
  })
}

async function insertUpsert(core: CollectionCore, filter: Document, change: Change, options: ModifyOptions, variables: Variables | undefined): Promise<unknown> {
  const stored = storedDocument(buildUpsertDocument(filter, change, options.arrayFilters, variables))
  checkId(stored.doc['_id'])
  await core.insertStored(stored)
  return stored.doc['_id']
}

type Vars = Variables | undefined

function changeOne(core: CollectionCore, entry: Found, filter: Document, change: Change, kind: Kind, options: ModifyOptions, variables: Vars): Promise<boolean>
function changeOne(core: CollectionCore, entry: Found, filter: Document, change: Change, kind: Kind, options: ModifyOptions, variables: Vars, returnAfter: true): Promise<Document>
async function changeOne(core: CollectionCore, [key, before, read]: Found, filter: Document, change: Change, kind: Kind, options: ModifyOptions, variables: Vars, returnAfter = false): Promise<boolean | Document> {
  let after: Document
  let changed = true
  // The bytes `before` was decoded from (this queued write has not changed them): read by the match, or now.
  const stored = read ?? core.storage.get(key)
  if (isPipelineUpdate(change)) {
    after = applyPipelineUpdate(before, change, variables)
  } else if (kind === 'operators') {
    // A fresh copy to change, decoded again from the stored bytes: cheaper than encoding `before` to decode it.
    after = decodeDocument(stored ?? encodeDocument(before))
    const update = withoutInsertOnly(change)
    changed = Object.keys(update).length > 0 && applyUpdate(after, update, filter, options.arrayFilters)
  } else {
    after = buildReplacement(before, change)
  }
  const modified = changed && (await core.commit(key, before, after, kind === 'replacement' ? 'replace' : 'update', stored))
  return returnAfter ? after : modified
}
