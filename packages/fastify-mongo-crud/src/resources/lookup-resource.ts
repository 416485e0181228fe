import { bodyWithoutId } from '../core/body-id.js'
import { conditionalWrite, exists } from '../core/conditional-request.js'
import { collectionPlace, placeKey } from '../core/etag.js'
import { prepareListPage } from '../core/list-page.js'
import type { Caller, RouterContext } from '../core/router-context.js'
import type { ListPresenter } from '../core/serve-list.js'
import { notCreated, notDeleted, notReplaced, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import { allOf } from '../query/filter.js'
import { groupFields } from '../query/group-fields.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import { parseFilter } from '../query/parse-filter.js'
import type { GroupSpec } from '../query/parse-group-query.js'
import { lookupLink } from '../relations/lookup-link.js'
import type { LookupPlan } from '../relations/lookup-plan.js'
import { routerRefs } from '../schema/router-refs.js'
import type { Snapshot, WireDoc } from '../store/store.js'
import { patchDocument } from './patch-document.js'
import type { PatchModel, Preconditions, Resource } from './resource.js'
import { runGroups } from './run-groups.js'
import { writeOrExplain } from './write-or-explain.js'

/**
 * The children of a lookup: documents of another collection whose foreign field holds their parent's
 * `localField` value. Every operation goes through the parent first (its identifier, scope and link
 * value: relations/lookup-link.ts), so a child is only ever reached through its own parent; writes
 * set the foreign field from the path and never update the parent.
 */
export function lookupResource(context: RouterContext, plan: LookupPlan, presenter: ListPresenter, patching: PatchModel): Resource {
  const { lookup, child, store } = plan
  const link = lookupLink(context, lookup)
  // Counts, `fields=` and cursors as on the main list; the children filter binds a cursor to its parent.
  const pageSpec = { count: store.count, selectFields: fieldSelector(child.out), cursors: { seal: new PageCursors(context.options.cursorSecret), typed: child.typed } }
  // The children's tags are those of their collection, as a router serving it would answer them.
  const key = placeKey(context.options.etagKey, collectionPlace(context.options.db, lookup.collectionName))
  const { filterContext } = child.listSpec
  const groups: GroupSpec = { fields: groupFields(filterContext.visible, [child.out, child.model], routerRefs(context.options)), maxGroups: context.options.maxGroups, page: context.options }

  /** The child of the path under its parent, or the operation's refusal; with the parent's link value. */
  async function childOf(caller: Caller, id: string, refused: () => Error) {
    const { value, children } = await link.parent(caller.request)
    const filter = link.child(id, children)
    if (filter === undefined) throw refused()
    return { value, filter }
  }

  /** Where a conditional write of the child `filter` names reads. */
  const targetOf = (filter: Filter) => ({ key, read: () => store.findSnapshot(filter), find: () => store.findOne(filter) })

  /** The child of the path as stored (for a patch), or `notUpdated` when there is none. */
  const snapshotOf = async (caller: Caller, id: string): Promise<Snapshot> =>
    (await store.findSnapshot((await childOf(caller, id, notUpdated)).filter)) ?? Promise.reject(notUpdated())

  /** The child of the path, or `refused` when there is none (GET's not found, a patch's `notUpdated`); a missing parent is not found. */
  async function find(caller: Caller, id: string, refused: () => Error, fields?: readonly string[]): Promise<WireDoc> {
    const doc = await store.findOne((await childOf(caller, id, refused)).filter, fields)
    if (doc === undefined) throw refused()
    return doc
  }

  const replaceChild = (filter: Filter, doc: WireDoc, unchanged: Snapshot | undefined) => store.replace(filter, doc, [], unchanged)
  /** A replace or update (a patch's, written whole, refused as `notUpdated`): the body's `id` may repeat the path's, the foreign field comes from the path. */
  async function write(caller: Caller, id: string, body: WireDoc, pre: Preconditions, run: (filter: Filter, doc: WireDoc, unchanged: Snapshot | undefined) => Promise<WireDoc | undefined>, refused: () => Error): Promise<WireDoc> {
    const { value, children } = await link.parent(caller.request)
    const doc = link.body(bodyWithoutId(body, id, '_id'), value)
    const filter = link.child(id, children)
    if (filter === undefined) throw refused()
    const written = await conditionalWrite(pre, targetOf(filter), refused, (unchanged) => writeOrExplain(() => run(filter, doc, unchanged), refused))
    if (written === undefined) throw refused()
    return written
  }

  return {
    presenter,
    selectFields: async (caller, raw) => pageSpec.selectFields(caller.request, raw),
    idKey: 'id',
    conditionalReads: true,
    tagKey: () => key,
    present: async (doc) => doc,
    async list(caller, raw) {
      const { children } = await link.parent(caller.request)
      const query = parseClientQuery(raw, child.listSpec)
      const page = await prepareListPage(pageSpec, caller, { ...query, filter: allOf(children, query.filter) }, raw)
      return { ...page, source: store }
    },
    groupFields: groups.fields,
    groups(caller, raw) {
      // The children of the parent of the path (in the caller's scope), as the list reads them.
      const filterOf = async () => allOf((await link.parent(caller.request)).children, parseFilter(raw.filters, filterContext))
      return runGroups(groups, raw, filterOf, store.groups)
    },
    get: (caller, id, fields) => find(caller, id, () => context.notFound(), fields),
    async create(caller, body, pre) {
      const { value } = await link.parent(caller.request)
      return writeOrExplain(() => store.insert(link.body(body, value)), pre.createOnly === true ? exists : notCreated)
    },
    replace: (caller, id, body, pre) => write(caller, id, body, pre, replaceChild, notReplaced),
    update: (caller, id, body, pre) => write(caller, id, body, pre, (filter, doc, unchanged) => store.update(filter, { set: doc }, unchanged), notUpdated),
    async delete(caller, id, pre) {
      const { filter } = await childOf(caller, id, notDeleted)
      if (!(await conditionalWrite(pre, targetOf(filter), notDeleted, (unchanged) => store.remove(filter, unchanged)))) throw notDeleted()
    },
    patch(caller, id, type, patch, pre) {
      const replaced = (writer: Caller, docId: string, body: WireDoc, at: Preconditions) => write(writer, docId, body, at, replaceChild, notUpdated)
      return patchDocument({ ...patching, typed: child.typed, kept: new Set<string>(), tagKey: () => key, read: snapshotOf, write: replaced }, caller, id, type, patch, pre)
    },
  }
}
