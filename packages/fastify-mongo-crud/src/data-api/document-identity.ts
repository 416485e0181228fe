import type { RouterContext } from '../core/router-context.js'
import { type Filter, fieldEquals } from '../query/filter.js'
import type { WireDoc } from '../store/store.js'

/**
 * A stored document's identifier as the routes name it in a path (`id`, or the router's identifier
 * field): what a write of one matched document dispatches with, and a filter that reads it again.
 */
export function identityOf(context: RouterContext) {
  const field = context.itemParam
  return {
    id: (doc: WireDoc) => String(doc[field]),
    filter: (doc: WireDoc): Filter => fieldEquals(field, doc[field] as string),
  }
}
