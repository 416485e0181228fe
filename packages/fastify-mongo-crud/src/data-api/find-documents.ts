import { allOf } from '../query/filter.js'
import { translating } from '../store/map-driver-error.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { clientFilter } from './client-filter.js'
import { readFilterOf } from './data-policy.js'
import { dataProjection } from './data-projection.js'
import { dataSort } from './data-sort.js'
import { encodeValue } from './ejson-response.js'
import { pageBounds } from './page-bounds.js'
import { readView } from './read-view.js'
import { runRouteGuards } from './route-guards.js'

/**
 * `findOne` (`{ document }`, `null` when none matches) and `find` (`{ documents }`): the list route's
 * guards, then one query of the database under the caller's read filter (with a `projection`, of the
 * paths it names among those the caller sees), each document pruned to what the caller sees before it
 * is answered (docs/data-api.md): as stored, BSON types kept. `find` answers at most `limit` (1000 by
 * default, 50,000 at most).
 */
export async function findDocuments(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller, format } = input
  const { context } = served.source
  await runRouteGuards(served.source, 'GetAll', caller.request, caller.reply)
  const view = await readView(served, caller.request)
  const filter = allOf(clientFilter(body['filter'], context.filterContext), await readFilterOf(context, caller.request))
  const sort = dataSort(body['sort'], context.sortable, context.filterContext.guard)
  const projection = dataProjection(body['projection'], view.shown, view.hidden)
  const one = input.action === 'findOne'
  const { limit, skip } = one ? { limit: 1, skip: 0 } : pageBounds(body, context.options)
  const { raw } = served
  const found = await translating(() =>
    raw.collection.find(raw.mongoFilter(filter), { ...raw.timeLimit, ...(projection.database === undefined ? {} : { projection: projection.database }), ...(sort === undefined ? {} : { sort }), skip, limit }).toArray()
  )
  const documents = found.map((doc) => encodeValue(projection.apply(view.prune(doc)), served.hints, format))
  return { status: 200, body: one ? { document: documents[0] ?? null } : { documents } }
}
