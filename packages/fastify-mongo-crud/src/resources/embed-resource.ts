import { notCreated, notDeleted, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import type { EmbedPlan } from '../relations/embed-routes.js'
import { parentFilter } from '../relations/parent.js'
import { bodyWithoutId } from '../routes/body-id.js'
import { checkIfMatch, exists, guardedWrite } from '../routes/conditional-request.js'
import { prepareListPage } from '../routes/list-page.js'
import type { Caller, RouterContext } from '../routes/router-context.js'
import type { ListPresenter, ListSource } from '../routes/serve-list.js'
import type { ArrayItems, WireDoc } from '../store/store.js'
import type { Resource } from './resource.js'
import { writeOrExplain } from './write-or-explain.js'

/**
 * The items of an embed: sub-documents in an array of the parent, reached through the parent's
 * identifier and scope. Every write is one atomic update of the parent; when it matches nothing, a
 * second read tells a missing parent (not found) from a missing or duplicate item (the write's own 422).
 */
export function embedResource(context: RouterContext, plan: EmbedPlan, presenter: ListPresenter): Resource {
  const { embed, child, items } = plan
  // `fields=` and page cursors as on the main list (routes/list-page.ts); counts read the one parent.
  const pageSpec = { selectFields: fieldSelector(child.out), cursors: { seal: new PageCursors(context.options.cursorSecret), typed: child.typed } }
  const parentOf = (caller: Caller) => parentFilter(context, caller.request)
  // Tags bound to the array and the parent of the request (routes/etag.ts).
  const tagKey = (caller: Caller) => context.itemEtagKey(caller.request, embed.embedName)

  async function explainMiss(caller: Caller, refused: () => Error): Promise<never> {
    const parent = await context.store.findOne(await parentOf(caller))
    throw parent === undefined ? context.notFound() : refused()
  }
  /** The item as stored, for `If-Match` (a missing parent is not found; a missing item, undefined). */
  const snapshot = (parent: Filter, id: string) => async () => {
    const found = await items.snapshot(parent, id)
    if (found === undefined) throw context.notFound()
    return found.item
  }
  const stillThere = (parent: Filter, id: string) => async () => (await items.get(parent, id))?.item

  return {
    presenter,
    selectFields: pageSpec.selectFields,
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
    async get(caller, id, fields) {
      const found = await items.get(await parentOf(caller), id)
      if (found?.item === undefined) throw context.notFound()
      return fields === undefined ? found.item : selectOf(found.item, fields)
    },
    async create(caller, body, pre) {
      const parent = await parentOf(caller)
      const created = await writeOrExplain(() => items.push(parent, body), notCreated)
      return created ?? explainMiss(caller, pre.createOnly === true ? exists : notCreated)
    },
    async update(caller, id, body, pre) {
      const changes = bodyWithoutId(body, id, '_id')
      const parent = await parentOf(caller)
      const unchanged = await checkIfMatch(pre.ifMatch, tagKey(caller), snapshot(parent, id), notUpdated)
      const write = () => writeOrExplain(() => items.update(parent, id, changes, unchanged), notUpdated)
      return (await guardedWrite(unchanged, write, stillThere(parent, id))) ?? explainMiss(caller, notUpdated)
    },
    async delete(caller, id, pre) {
      const parent = await parentOf(caller)
      const unchanged = await checkIfMatch(pre.ifMatch, tagKey(caller), snapshot(parent, id), notDeleted)
      if (!(await guardedWrite(unchanged, () => items.pull(parent, id, unchanged), stillThere(parent, id)))) await explainMiss(caller, notDeleted)
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
