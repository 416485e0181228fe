import { bodyWithoutId } from '../core/body-id.js'
import { conditionalWrite, exists } from '../core/conditional-request.js'
import { prepareListPage } from '../core/list-page.js'
import type { Caller, RouterContext } from '../core/router-context.js'
import type { ListPresenter, ListSource } from '../core/serve-list.js'
import { notCreated, notDeleted, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import { groupFields } from '../query/group-fields.js'
import type { ListQuery } from '../query/list-query.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import { parseFilter } from '../query/parse-filter.js'
import type { GroupSpec } from '../query/parse-group-query.js'
import type { EmbedPlan } from '../relations/embed-plan.js'
import { parentFilter } from '../relations/parent.js'
import { routerRefs } from '../schema/router-refs.js'
import type { ArrayItems, Snapshot, WireDoc } from '../store/store.js'
import { patchDocument } from './patch-document.js'
import type { PatchModel, Preconditions, Resource } from './resource.js'
import { runGroups } from './run-groups.js'
import { writeOrExplain } from './write-or-explain.js'

/**
 * The items of an embed: sub-documents in an array of the parent, reached through the parent's
 * identifier and scope. Every write is one atomic update of the parent; when it matches nothing, a
 * second read tells a missing parent (not found) from a missing or duplicate item (the write's own 422).
 */
export function embedResource(context: RouterContext, plan: EmbedPlan, presenter: ListPresenter, patching: PatchModel): Resource {
  const { embed, child, items } = plan
  // `fields=` and page cursors as on the main list (core/list-page.ts); counts read the one parent.
  const pageSpec = { selectFields: fieldSelector(child.out), cursors: { seal: new PageCursors(context.options.cursorSecret), typed: child.typed } }
  const parentOf = (caller: Caller) => parentFilter(context, caller.request)
  // Writing an item is an update of its parent: under what the caller may update, not only read.
  const writableParentOf = (caller: Caller) => parentFilter(context, caller.request, 'update')
  // Tags bound to the array and the parent of the request (core/etag.ts).
  const tagKey = (caller: Caller) => context.itemEtagKey(caller.request, embed.embedName)
  const { filterContext } = child.listSpec
  const groups: GroupSpec = { fields: groupFields(filterContext.visible, [child.out, child.model], routerRefs(context.options)), maxGroups: context.options.maxGroups, page: context.options }

  async function explainMiss(caller: Caller, refused: () => Error): Promise<never> {
    const parent = await context.store.findOne(await parentOf(caller))
    throw parent === undefined ? context.notFound() : refused()
  }
  const { targetOf, snapshotOf } = itemVersions(items, writableParentOf, tagKey, () => context.notFound())

  /** The item replaced whole (what a patch computed), guarded as `update` is. */
  async function overwrite(caller: Caller, id: string, body: WireDoc, pre: Preconditions): Promise<WireDoc> {
    const parent = await writableParentOf(caller)
    const write = (unchanged: Snapshot | undefined) => writeOrExplain(() => items.replace(parent, id, body, unchanged), notUpdated)
    return (await conditionalWrite(pre, targetOf(caller, parent, id), notUpdated, write)) ?? explainMiss(caller, notUpdated)
  }

  return {
    presenter,
    selectFields: async (caller, raw) => pageSpec.selectFields(caller.request, raw),
    idKey: 'id',
    conditionalReads: true,
    tagKey,
    present: async (doc) => doc,
    async list(caller, raw) {
      const parent = await parentOf(caller)
      const source = itemsOfParent(items, parent, () => context.notFound())
      // The items live in one parent document (16 MB at most): counting them reads that one document.
      const count = (filter: Filter | undefined) => countAll(source.list({ filter, skip: 0 }))
      const page = await prepareListPage({ ...pageSpec, count }, caller, parseClientQuery(raw, child.listSpec), raw, parent)
      return { ...page, source }
    },
    groupFields: groups.fields,
    async groups(caller, raw) {
      const parent = await parentOf(caller)
      const answer = await runGroups(groups, raw, async () => parseFilter(raw.filters, filterContext), (query) => items.groups(parent, query))
      // No group: a parent without matching items, or no parent (404, as its list answers).
      if (answer.length === 0 && !(await items.hasParent(parent))) throw context.notFound()
      return answer
    },
    async get(caller, id, fields) {
      const item = await itemOf(items, await parentOf(caller), id, () => context.notFound(), () => context.notFound())
      return fields === undefined ? item : selectOf(item, fields)
    },
    async create(caller, body, pre) {
      const parent = await writableParentOf(caller)
      const created = await writeOrExplain(() => items.push(parent, body), notCreated)
      return created ?? explainMiss(caller, pre.createOnly === true ? exists : notCreated)
    },
    async update(caller, id, body, pre) {
      const changes = bodyWithoutId(body, id, '_id')
      const parent = await writableParentOf(caller)
      const write = (unchanged: Snapshot | undefined) => writeOrExplain(() => items.update(parent, id, changes, unchanged), notUpdated)
      return (await conditionalWrite(pre, targetOf(caller, parent, id), notUpdated, write)) ?? explainMiss(caller, notUpdated)
    },
    async delete(caller, id, pre) {
      const parent = await writableParentOf(caller)
      if (!(await conditionalWrite(pre, targetOf(caller, parent, id), notDeleted, (unchanged) => items.pull(parent, id, unchanged)))) await explainMiss(caller, notDeleted)
    },
    patch(caller, id, type, patch, pre) {
      return patchDocument({ ...patching, typed: child.typed, kept: new Set<string>(), tagKey, read: snapshotOf, write: overwrite }, caller, id, type, patch, pre)
    },
  }
}

/**
 * The items of one parent as a list source. An empty list asks whether the parent exists, so a
 * missing parent is a 404 (before the status of a streamed list goes out) and never an empty array.
 */
function itemsOfParent(items: ArrayItems, parent: Filter, notFound: () => Error): ListSource {
  const checkParent = async () => {
    if (!(await items.hasParent(parent))) throw notFound()
  }
  // The parent is read whole (one document); `fields=` keeps the fields it names of each item.
  const pick = (query: ListQuery) => (item: WireDoc) => (query.fields === undefined ? item : selectOf(item, query.fields))
  return {
    async find(query) {
      const page = await items.find(parent, query)
      if (page.length === 0) await checkParent()
      return page.map(pick(query))
    },
    async *list(query) {
      let empty = true
      const shown = pick(query)
      for await (const item of items.list(parent, query)) {
        empty = false
        yield shown(item)
      }
      if (empty) await checkParent()
    },
  }
}

/** The item `id` of the parent; a missing parent is `notFound`, a missing item `refused` (GET's not found, a patch's `notUpdated`). */
async function itemOf(items: ArrayItems, parent: Filter, id: string, notFound: () => Error, refused: () => Error): Promise<WireDoc> {
  const found = await items.get(parent, id)
  if (found?.item === undefined) throw found === undefined ? notFound() : refused()
  return found.item
}

function selectOf(item: WireDoc, fields: readonly string[]): WireDoc {
  const selected: WireDoc = {}
  for (const field of fields) if (Object.hasOwn(item, field)) selected[field] = item[field]
  return selected
}

async function countAll(items: AsyncIterable<unknown>): Promise<number> {
  let count = 0
  for await (const _ of items) count++
  return count
}

/** Where conditional writes of items read: an item's stored version (a missing parent is not found), and whether it is still there. */
function itemVersions(items: ArrayItems, parentOf: (caller: Caller) => Promise<Filter>, tagKey: (caller: Caller) => string, notFound: () => Error) {
  const snapshot = async (parent: Filter, id: string) => {
    const found = await items.snapshot(parent, id)
    if (found === undefined) throw notFound()
    return found.item
  }
  return {
    targetOf: (caller: Caller, parent: Filter, id: string) => ({ key: tagKey(caller), read: () => snapshot(parent, id), find: async () => (await items.get(parent, id))?.item }),
    /** The item of the path as stored (for a patch), or `notUpdated` when there is none. */
    async snapshotOf(caller: Caller, id: string): Promise<Snapshot> {
      const found = await snapshot(await parentOf(caller), id)
      if (found === undefined) throw notUpdated()
      return found
    },
  }
}
