import type { FastifyRequest, RouteOptions } from 'fastify'
import { reachable } from '../access/compile-access.js'
import { invalidBody, outOfScope } from '../errors.js'
import { partialEvaluate } from '../query/evaluate-filter.js'
import { allOf, type Filter, type FilterValue } from '../query/filter.js'
import type { WireDoc } from '../store/store.js'
import { keepLinkFields } from './keep-link-fields.js'
import type { RouterContext } from './router-context.js'

/**
 * Keeps writes inside the caller's row scope. A write knows the fields it sets; the scope is
 * evaluated on them, and what it says about the fields the write leaves alone becomes part of the
 * write's own filter, so the database checks it in the same atomic operation: no concurrent write
 * can slip between the check and the change.
 *
 * `after` holds the fields the write sets (wire names); `isKnown` says which top-level fields the
 * result takes from `after` (absent there means removed). Answers 403 when the result would leave
 * the scope, the route's own refusal (`refused`) when the document is missing or out of scope.
 */
export async function scopedWrite<T>(
  context: RouterContext,
  request: FastifyRequest,
  itemFilter: Filter,
  change: { after: WireDoc, isKnown: (field: string) => boolean },
  write: (filter: Filter) => Promise<T | undefined>,
  refused: () => Error
): Promise<T> {
  // Every replace and update passes here: the one place to keep the values lookup children link by.
  await keepLinkFields(context, itemFilter, change)
  // The result must stay inside what the caller may update (`itemFilter` holds that for the document before).
  const scope = reachable(await context.access(request), 'update')
  const residual = scope === undefined ? true : partialEvaluate(scope, context.store.asStored(change.after), change.isKnown)
  if (residual === false) {
    // The document is not changed either way; the answer says why.
    throw (await context.store.findOne(itemFilter)) === undefined ? refused() : outOfScope()
  }
  const result = await write(residual === true ? itemFilter : allOf(itemFilter, residual)!)
  if (result !== undefined) return result
  if (residual !== true && (await context.store.findOne(itemFilter)) !== undefined) throw outOfScope()
  throw refused()
}

/**
 * A create's document must fall inside the scope; every field of it is known. Under a scope its `id`
 * is the server's to choose (unless `clientIdsUnderScope: 'allow'`): ids are unique across scopes, so
 * the answer to a chosen id ("not created", or 412 under `If-None-Match: *`) would tell whether
 * another caller's document has it. Refused whether taken or free, the answer tells nothing.
 */
export async function checkCreateInScope(context: RouterContext, request: FastifyRequest, doc: WireDoc): Promise<void> {
  if (!context.guarded) return
  const access = await context.access(request)
  // A caller who may not read every document could tell a taken id from a free one.
  const readsAll = context.options.filterDependency === undefined && access.allows('read') && access.grant('read') === undefined
  if (!readsAll && doc['id'] !== undefined && context.options.clientIdsUnderScope === 'refuse') {
    throw invalidBody([{ loc: ['body', 'id'], msg: 'The server chooses the id of a new document here: leave id out', type: 'id_not_allowed' }])
  }
  const scope = reachable(access, 'create')
  if (scope !== undefined && partialEvaluate(scope, context.store.asStored(doc), () => true) !== true) throw outOfScope()
}

/**
 * The fields of a body the caller's role may not send: those it does not see (refused as unknown
 * fields are) and its read-only ones, unless the operation's own filter fixes them to one value (an
 * owner field the policy fills: it is then checked against that value, and cannot change).
 */
export async function refuseRoleFields(context: RouterContext, request: FastifyRequest, fields: Iterable<string>, op: 'create' | 'update', at: readonly string[] = ['body']): Promise<void> {
  const access = await context.access(request)
  if (access.hidden.size === 0 && access.readOnly.size === 0) return
  const fixed = new Set(fixedFields(access.grant(op)).map((field) => field.path))
  for (const field of fields) {
    if (access.hidden.has(field)) throw invalidBody([{ loc: [...at, field], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }])
    if (access.readOnly.has(field) && !fixed.has(field)) {
      throw invalidBody([{ loc: [...at, field], msg: `The role '${access.role}' may not set ${field}`, type: 'read_only' }])
    }
  }
}

/**
 * A create or a PUT that leaves out a field its filter (the scope's, the role's `create` or `update`)
 * fixes by equality (`{ owner: <caller> }`) gets that value. Runs before validation, so such a field
 * may be required by the model.
 */
export async function fillFromScope(context: RouterContext, request: FastifyRequest, body: unknown = request.body, op: 'create' | 'update' = 'create'): Promise<void> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return
  const access = await context.access(request)
  if (!access.allows(op)) return
  const scope = access.grant(op)
  for (const { path, value } of fixedFields(scope)) {
    if (!Object.hasOwn(body, path)) (body as WireDoc)[path] = value
  }
}

/**
 * A route's own `preValidation` hooks (its dependencies), then under a scope or a policy `fillFromScope`:
 * the scope is known once the dependencies ran, and the body must be whole before it is validated.
 */
export function preValidationFillingScope(context: RouterContext, own: RouteOptions['preValidation'], op: 'create' | 'update' = 'create'): Pick<RouteOptions, 'preValidation'> {
  const fill = context.guarded ? [(request: FastifyRequest) => fillFromScope(context, request, request.body, op)] : []
  const hooks = [...(own === undefined ? [] : [own].flat()), ...fill]
  return hooks.length === 0 ? {} : { preValidation: hooks }
}

/** The top-level fields a scope fixes to one value: plain equalities, alone or ANDed. */
function fixedFields(scope: Filter | undefined): Array<{ path: string, value: unknown }> {
  if (scope === undefined) return []
  const items = scope.kind === 'and' ? scope.items : [scope]
  return items.flatMap((item) => {
    if (item.kind !== 'field' || item.path.includes('.') || item.path === 'id') return []
    const equal = item.conditions.find((condition) => condition.op === 'eq') as { value: FilterValue } | undefined
    const value = equal?.value
    // Objects are not filled in (their shape is the model's business, not the scope's), nor is null.
    if (value === undefined || value === null || typeof value === 'object') return []
    return [{ path: item.path, value }]
  })
}
