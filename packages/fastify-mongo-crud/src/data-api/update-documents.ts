import { etagOf } from '../core/etag.js'
import { BATCH_STEPS, dispatch } from '../dispatch/dispatch.js'
import { HTTPException, patchRetriesExhausted } from '../errors.js'
import { allOf, type Filter } from '../query/filter.js'
import type { WireDoc } from '../store/store.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { allOrNothing } from './all-or-nothing.js'
import { applyUpdate, type UpdateTarget } from './apply-update.js'
import { clientFilter } from './client-filter.js'
import { invalidParameter, missingParameter } from './data-api-error.js'
import { readOnlyFieldsOf, writeFilterOf } from './data-policy.js'
import { identityOf } from './document-identity.js'
import { encodeValue } from './ejson-response.js'
import { jsonPatchOf } from './json-patch-of.js'
import { type ParsedUpdate, parseUpdate } from './parse-update.js'
import { readView } from './read-view.js'
import { hintAt } from './type-hints.js'
import { upsertSeed } from './upsert-seed.js'

/** The most documents one `updateMany` changes: each is checked and written on its own, in one transaction. */
export const MAX_UPDATE_MANY = 10_000

/** Attempts of one document's update whose document another write changed between its read and its write. */
const ATTEMPTS = 5

type Outcome = 'modified' | 'unchanged' | 'gone'

/**
 * `updateOne` and `updateMany` (`{ matchedCount, modifiedCount, upsertedId? }`). The update is checked
 * first (parse-update.ts); each matching document (of those the caller may read and update) is read,
 * the operators applied to it here, and the result written as a JSON Patch of the fields it changes,
 * through the dispatch: the update route's guards, the model's check of the whole result (422, nothing
 * stored), the role's `update` filter on the result, and `If-Match` on the version read, so a write
 * that came in between is met by applying the update again to the new version. `updateMany` runs
 * every document's write in one transaction: all or nothing. An upsert that matches nothing creates
 * the document the filter's equalities and the update make, as `insertOne` does.
 */
export async function updateDocuments(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller } = input
  const { context } = served.source
  const many = input.action === 'updateMany'
  if (body['filter'] === undefined) throw missingParameter('filter', input.action)
  if (body['update'] === undefined) throw missingParameter('update', input.action)
  const upsert = body['upsert'] ?? false
  if (typeof upsert !== 'boolean') throw invalidParameter("'upsert' must be true or false")
  const view = await readView(served, caller.request)
  const update = parseUpdate(body['update'], { shown: view.shown, readOnly: await readOnlyFieldsOf(context, caller.request) })
  const filter = clientFilter(body['filter'], context.filterContext)
  const matching = allOf(filter, await writeFilterOf(context, caller.request, 'update'))
  const docs = await context.store.find({ filter: matching, skip: 0, limit: many ? MAX_UPDATE_MANY + 1 : 1 })
  if (docs.length > MAX_UPDATE_MANY) throw invalidParameter(`updateMany matches more than ${MAX_UPDATE_MANY} documents: narrow the filter`)
  const target: UpdateTarget = { shown: view.shown, filterContext: context.filterContext, inserting: false, now: new Date() }
  if (docs.length === 0 && upsert) return upserted(input, filter, update, target)
  const writer = documentWriter(input, update, target, matching)
  const outcomes = many
    ? await allOrNothing(context.options.db, () => writeAll(docs, writer.write), () => writer.precheck(docs))
    : await writeAll(docs, writer.write)
  const matchedCount = outcomes.filter((outcome) => outcome !== 'gone').length
  return { status: 200, body: { matchedCount, modifiedCount: outcomes.filter((outcome) => outcome === 'modified').length } }
}

async function writeAll(docs: readonly WireDoc[], write: (doc: WireDoc) => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (const doc of docs) outcomes.push(await write(doc))
  return outcomes
}

/** How one matching document is updated, and the model's check of every result before a write without transactions. */
function documentWriter(input: ActionInput, update: ParsedUpdate, target: UpdateTarget, matching: Filter | undefined) {
  const { endpoint, context } = input.served.source
  const identity = identityOf(context)
  return {
    async write(doc: WireDoc): Promise<Outcome> {
      let current: WireDoc | undefined = doc
      for (let attempt = 0; attempt < ATTEMPTS && current !== undefined; attempt++) {
        const after = applyUpdate(current, update, target)
        const patch = jsonPatchOf(current, after, update.fields)
        if (patch.length === 0) return 'unchanged'
        const operation = { op: 'update' as const, id: identity.id(current), body: patch, contentType: 'application/json-patch+json', ifMatch: etagOf(current, context.etagKey) }
        try {
          await dispatch(endpoint, operation, input.caller, BATCH_STEPS)
          return 'modified'
        } catch (error) {
          // Another write changed the document since it was read: the update applies to the new version, if it still matches.
          if (!(error instanceof HTTPException) || error.statusCode !== 412) throw error
          current = await context.store.findOne(allOf(identity.filter(current), matching)!)
        }
      }
      if (current === undefined) return 'gone'
      throw patchRetriesExhausted()
    },
    async precheck(docs: readonly WireDoc[]): Promise<void> {
      const check = endpoint.checks.replace ?? endpoint.checks.create
      const declared = context.typed.kind === 'object' ? context.typed.fields : new Map()
      for (const doc of docs) {
        const after = applyUpdate(doc, update, target)
        check(Object.fromEntries(Object.entries(after).filter(([field]) => field !== 'id' && declared.has(field))))
      }
    },
  }
}

/** An upsert that matched nothing: the document the filter's equalities and the update make (`$setOnInsert` included), created as `insertOne` creates one. */
async function upserted(input: ActionInput, filter: Filter | undefined, update: ParsedUpdate, target: UpdateTarget): Promise<ActionResult> {
  const { served, caller, format } = input
  const doc = applyUpdate(upsertSeed(filter), update, { ...target, inserting: true })
  const created = await dispatch(served.source.endpoint, { op: 'create', body: doc }, caller, BATCH_STEPS)
  const upsertedId = encodeValue(created.doc?.['id'], hintAt(served.hints, '_id'), format)
  return { status: 200, body: { matchedCount: 0, modifiedCount: 0, upsertedId } }
}
