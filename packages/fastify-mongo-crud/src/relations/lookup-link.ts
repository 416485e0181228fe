import type { FastifyRequest } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { invalidBody } from '../errors.js'
import type { CRUDLookup } from '../options/crud-lookup.js'
import { allOf, type Filter, type FilterValue, fieldEquals } from '../query/filter.js'
import { isObjectIdHex } from '../shapes/object-id.js'
import type { WireDoc } from '../store/store.js'
import { loadParent } from './parent.js'

/** How the routes of one lookup tie a request to a parent and its children (another collection). */
interface LookupLink {
  /** The parent's `localField` value as its children store it, and the filter selecting those children. */
  parent(request: FastifyRequest): Promise<{ value: FilterValue, children: Filter }>
  /** The child `id` among `children`; undefined when `id` cannot be a child id. */
  child(id: string, children: Filter): Filter | undefined
  /** The body (without `id`) with the foreign field set to `value`; a body naming another parent is refused. */
  body(body: WireDoc, value: FilterValue): WireDoc
}

export function lookupLink(context: RouterContext, lookup: CRUDLookup): LookupLink {
  return {
    async parent(request) {
      const parent = await loadParent(context, request)
      const value = parent[lookup.localField === '_id' ? 'id' : lookup.localField] as FilterValue | undefined
      // A parent without a value has no children, as if it were missing: `null` would select every
      // child stored without a parent (any tenant's), and a create would store `null` in the child.
      if (value === undefined || value === null) throw context.notFound()
      return { value, children: fieldEquals(lookup.foreignField, value) }
    },
    child(id, children) {
      return isObjectIdHex(id) ? allOf(fieldEquals('id', id.toLowerCase()), children) : undefined
    },
    body(sent, value) {
      const { id: _id, ...body } = sent
      const foreign = body[lookup.foreignField]
      if (foreign !== undefined && String(foreign).toLowerCase() !== String(value).toLowerCase()) {
        throw invalidBody([{ loc: ['body', lookup.foreignField], msg: 'Must be the parent in the path, or left out', type: 'foreign_key_mismatch' }])
      }
      return { ...body, [lookup.foreignField]: value }
    },
  }
}
