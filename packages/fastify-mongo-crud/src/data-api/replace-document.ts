import { isDeepStrictEqual } from 'node:util'
import { etagOf } from '../core/etag.js'
import { BATCH_STEPS, dispatch } from '../dispatch/dispatch.js'
import { HTTPException, patchRetriesExhausted } from '../errors.js'
import { allOf } from '../query/filter.js'
import type { WireDoc } from '../store/store.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { clientFilter } from './client-filter.js'
import { invalidParameter, missingParameter } from './data-api-error.js'
import { writeFilterOf } from './data-policy.js'
import { identityOf } from './document-identity.js'
import { encodeValue } from './ejson-response.js'
import { documentOf } from './insert-documents.js'
import { hintAt } from './type-hints.js'
import { upsertSeed } from './upsert-seed.js'

const ATTEMPTS = 5

/**
 * `replaceOne` (`{ matchedCount, modifiedCount, upsertedId? }`): the first document the filter matches
 * (of those the caller may read and update) replaced as `PUT <prefix>/{id}` replaces it, through the
 * dispatch (the replace route's guards, the model's check, the role's filter on the result), guarded
 * by the version read. Its `_id` stays: a replacement naming another is refused, as MongoDB refuses it.
 * An upsert that matches nothing creates the replacement (with the filter's `_id`, if it names one).
 */
export async function replaceDocument(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller, format } = input
  const { context, endpoint } = served.source
  if (body['filter'] === undefined) throw missingParameter('filter', 'replaceOne')
  const replacement = documentOf(body['replacement'], 'replacement', 'replaceOne')
  if (Object.keys(replacement).some((key) => key.startsWith('$'))) throw invalidParameter("'replacement' is a whole document: update operators are updateOne's")
  const upsert = body['upsert'] ?? false
  if (typeof upsert !== 'boolean') throw invalidParameter("'upsert' must be true or false")
  const filter = clientFilter(body['filter'], context.filterContext)
  const matching = allOf(filter, await writeFilterOf(context, caller.request, 'update'))
  const identity = identityOf(context)
  let current: WireDoc | undefined = (await context.store.find({ filter: matching, skip: 0, limit: 1 }))[0]
  if (current === undefined) {
    if (!upsert) return { status: 200, body: { matchedCount: 0, modifiedCount: 0 } }
    const seeded = upsertSeed(filter)['id']
    const created = await dispatch(endpoint, { op: 'create', body: seeded === undefined ? replacement : { id: seeded, ...replacement } }, caller, BATCH_STEPS)
    return { status: 200, body: { matchedCount: 0, modifiedCount: 0, upsertedId: encodeValue(created.doc?.['id'], hintAt(served.hints, '_id'), format) } }
  }
  for (let attempt = 0; attempt < ATTEMPTS && current !== undefined; attempt++) {
    const { id, ...whole } = replacement
    if (id !== undefined && String(id) !== String(current['id'])) throw invalidParameter("replaceOne: the replacement's _id differs from the matched document's, and '_id' is immutable")
    try {
      const written = await dispatch(endpoint, { op: 'replace', id: identity.id(current), body: whole, ifMatch: etagOf(current, context.etagKey) }, caller, BATCH_STEPS)
      return { status: 200, body: { matchedCount: 1, modifiedCount: isDeepStrictEqual(written.doc, current) ? 0 : 1 } }
    } catch (error) {
      if (!(error instanceof HTTPException) || error.statusCode !== 412) throw error
      current = await context.store.findOne(allOf(identity.filter(current), matching)!)
    }
  }
  if (current === undefined) return { status: 200, body: { matchedCount: 0, modifiedCount: 0 } }
  throw patchRetriesExhausted()
}
