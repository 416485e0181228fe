import { isDeepStrictEqual } from 'node:util'
import { invalidBody } from '../errors.js'
import type { Filter } from '../query/filter.js'
import { nodeAt } from '../shapes/model-shape.js'
import type { WireDoc } from '../store/store.js'
import type { RouterContext } from './router-context.js'

/**
 * A parent keeps the value its lookup children are linked by (a `localField` other than `_id`, unique
 * and required: check-local-field.ts). A PUT or PATCH may repeat it, never change or remove it: the
 * children would stay behind with the old value, for the next parent given it (another caller's,
 * perhaps) to take. This holds for the identifier field too, which the router otherwise lets change.
 *
 * Every replace and update of a document, route or service, passes here (core/scoped-write.ts), so
 * no write through the router changes the value: checking it against the stored document is enough,
 * as whatever write raced with this one could not have changed it either. `change` is what
 * scopedWrite receives: the fields the write sets, and which fields it decides (`isKnown`).
 */
export async function keepLinkFields(
  context: RouterContext,
  itemFilter: Filter,
  change: { after: WireDoc, isKnown: (field: string) => boolean }
): Promise<void> {
  const links = context.options.lookups.filter((lookup) => lookup.localField !== '_id' && change.isKnown(lookup.localField))
  if (links.length === 0) return
  const stored = await context.store.findOne(itemFilter)
  // A missing document (or one outside the scope) is the write's own answer to give.
  if (stored === undefined) return
  const changed = [...new Set(links.map((lookup) => lookup.localField))].filter((field) => !sameValue(context, field, stored[field], change.after[field]))
  if (changed.length === 0) return
  throw invalidBody(
    changed.map((field) => ({
      loc: ['body', field],
      msg: `Cannot be changed: the ${links.filter((l) => l.localField === field).map((l) => `'${l.prefix}'`).join(', ')} of this document are linked to it`,
      type: 'link_field_change',
    }))
  )
}

/** Stored and sent values of one field: `null` and absent are both no value; ObjectIds in any case. */
function sameValue(context: RouterContext, field: string, stored: unknown, sent: unknown): boolean {
  if ((stored ?? null) === null || (sent ?? null) === null) return (stored ?? null) === (sent ?? null)
  if (nodeAt(context.typed, [field])?.kind === 'objectId' && typeof stored === 'string' && typeof sent === 'string') {
    return stored.toLowerCase() === sent.toLowerCase()
  }
  return isDeepStrictEqual(stored, sent)
}
