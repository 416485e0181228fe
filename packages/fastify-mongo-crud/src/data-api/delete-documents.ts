import { BATCH_STEPS, dispatch } from '../dispatch/dispatch.js'
import { HTTPException } from '../errors.js'
import { allOf, type Filter } from '../query/filter.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { clientFilter } from './client-filter.js'
import { missingParameter } from './data-api-error.js'
import { writeFilterOf } from './data-policy.js'
import { identityOf } from './document-identity.js'
import { runRouteGuards } from './route-guards.js'

/** Every document: what a `{}` filter under an open policy matches. */
const EVERYTHING: Filter = { kind: 'and', items: [] }

/**
 * `deleteOne` and `deleteMany` (`{ deletedCount }`), of the documents the caller may read and delete.
 * `deleteOne` deletes the first match as `DELETE <prefix>/{id}` does, through the dispatch (the delete
 * route's guards). `deleteMany` runs those guards once, then deletes every match in one operation of
 * the database (MongoDB's `deleteMany`, which no model has anything to check of).
 */
export async function deleteDocuments(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller } = input
  const { context, endpoint } = served.source
  if (body['filter'] === undefined) throw missingParameter('filter', input.action)
  const matching = allOf(clientFilter(body['filter'], context.filterContext), await writeFilterOf(context, caller.request, 'delete'))
  if (input.action === 'deleteMany') {
    await runRouteGuards(served.source, 'DeleteOne', caller.request, caller.reply)
    return { status: 200, body: { deletedCount: await context.store.removeMany(matching ?? EVERYTHING) } }
  }
  const doc = (await context.store.find({ filter: matching, skip: 0, limit: 1 }))[0]
  if (doc === undefined) return { status: 200, body: { deletedCount: 0 } }
  try {
    await dispatch(endpoint, { op: 'delete', id: identityOf(context).id(doc) }, caller, BATCH_STEPS)
  } catch (error) {
    // Deleted by another request since it was read: this one deleted nothing.
    if (error instanceof HTTPException && error.code === 'FMC_ERR_NOT_DELETED') return { status: 200, body: { deletedCount: 0 } }
    throw error
  }
  return { status: 200, body: { deletedCount: 1 } }
}
