import type { AccessOp } from '../access/access-options.js'
import { bodyWithoutId } from '../core/body-id.js'
import { conditionalWrite, exists, guardedWrite, versionToKeep } from '../core/conditional-request.js'
import { prepareListPage } from '../core/list-page.js'
import { listFilter, mainListPage, parseListQuery } from '../core/main-list.js'
import { refuseReservedId } from '../core/reserved-segments.js'
import type { Caller, RouterContext } from '../core/router-context.js'
import { checkCreateInScope, refuseRoleFields, scopedWrite } from '../core/scoped-write.js'
import type { ListPresenter } from '../core/serve-list.js'
import { notCreated, notDeleted, notReplaced, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import { groupFields } from '../query/group-fields.js'
import type { GroupSpec } from '../query/parse-group-query.js'
import { routerRefs } from '../schema/router-refs.js'
import type { DocChanges, WireDoc } from '../store/store.js'
import { patchDocument } from './patch-document.js'
import type { PatchModel, Preconditions, Resource } from './resource.js'
import { runGroups } from './run-groups.js'
import { writeOrExplain } from './write-or-explain.js'

/**
 * The router's own documents: read and written under its row scope (`filterDependency`), shown with
 * their references populated. Every write's result is checked against the scope in the write itself
 * (core/scoped-write.ts), and `If-Match` is part of the write too (compare-and-swap).
 */
export function collectionResource(context: RouterContext, presenter: ListPresenter, patching: PatchModel): Resource {
  const { store, options } = context
  const pageSpec = mainListPage(context)
  const { keepOnReplace, replaced } = replaceRules(context)
  // Grouped by what the list filters on (its guard of references too); documented with the output model's types (the stored model's for a hidden field `filterable` lists).
  const fields = groupFields(context.visible, [options.modelOut ?? options.model, options.model], routerRefs(options))
  const groups: GroupSpec = { fields, maxGroups: options.maxGroups, page: options, guard: context.filterContext.guard }

  const { itemOf, snapshotOf, find } = documentReads(context)

  /** A replace or update: If-Match read first, then the write guarded by it and by the scope at once. */
  async function write(caller: Caller, id: string, change: { after: WireDoc, isKnown: (field: string) => boolean }, pre: Preconditions, run: (filter: Filter, unchanged: Parameters<typeof store.update>[2]) => Promise<WireDoc | undefined>, refused: () => Error): Promise<WireDoc> {
    const filter = await itemOf(caller, id, refused, 'update')
    const unchanged = await versionToKeep(pre, context.etagKey, () => store.findSnapshot(filter), refused)
    const written = (guarded: Filter) =>
      guardedWrite(unchanged, () => writeOrExplain(() => run(guarded, unchanged), refused), () => store.findOne(guarded))
    return scopedWrite(context, caller.request, filter, change, written, refused)
  }

  /**
   * A PUT of the whole document. What the caller's role does not see or may not set is kept as stored
   * when the body leaves it out (a patch sends it back as it read it: `roleChecked`). A document that is not
   * there (any more) is `refused`: a patch, written whole, answers as a PATCH does (`notUpdated`).
   */
  async function replaceDoc(caller: Caller, id: string, body: WireDoc, pre: Preconditions, roleChecked: boolean, refused: () => Error): Promise<WireDoc> {
    if (options.identifierField !== '_id') refuseReservedId(options.identifierField, body[options.identifierField])
    const doc = bodyWithoutId(body, id, options.identifierField)
    const kept = context.policy === undefined ? keepOnReplace : await keptForRole(context, caller, doc, keepOnReplace, roleChecked)
    const isKnown = kept === keepOnReplace ? replaced : (field: string) => replaced(field) && !kept.includes(field)
    return write(caller, id, { after: doc, isKnown }, pre, (filter, unchanged) => store.replace(filter, doc, kept, unchanged), refused)
  }

  return {
    presenter,
    async selectFields(caller, raw) {
      // Without `fields=`, a role that does not see some fields reads the whole document (its tag is the
      // document's) and is shown the rest (`present`); the fields it sees are its selection.
      const fields = pageSpec.selectFields(caller.request, raw, (await context.access(caller.request)).hidden)
      return raw === undefined ? undefined : fields
    },
    idKey: context.itemParam,
    conditionalReads: options.populates.length === 0,
    tagKey: () => context.etagKey,
    present: (doc, caller) => context.present(doc, caller),
    async list(caller, raw) {
      const query = await parseListQuery(context, caller.request, raw)
      const page = await prepareListPage(pageSpec, caller, query, raw, undefined, (await context.access(caller.request)).hidden)
      return { ...page, source: store }
    },
    groupFields: groups.fields,
    groups: (caller, raw) => runGroups(groups, raw, () => listFilter(context, caller.request, raw.filters), store.groups),
    get: (caller, id, fields) => find(caller, id, () => context.notFound(), fields),
    async create(caller, body, pre) {
      if (options.identifierField !== '_id') refuseReservedId(options.identifierField, body[options.identifierField])
      if (context.policy !== undefined) await refuseRoleFields(context, caller.request, Object.keys(body), 'create')
      await checkCreateInScope(context, caller.request, body)
      return writeOrExplain(() => store.insert(body), pre.createOnly === true ? exists : notCreated)
    },
    replace: (caller, id, body, pre) => replaceDoc(caller, id, body, pre, false, notReplaced),
    async update(caller, id, body, pre) {
      // A PATCH may set the identifier too: onto a reserved segment, the document could not be read again.
      if (options.identifierField !== '_id') refuseReservedId(options.identifierField, body[options.identifierField])
      const changes = bodyWithoutId(body, id, options.identifierField)
      if (context.policy !== undefined) await refuseRoleFields(context, caller.request, Object.keys(changes), 'update')
      const isKnown = (field: string) => Object.hasOwn(changes, field)
      const set: DocChanges = { set: changes }
      return write(caller, id, { after: changes, isKnown }, pre, (filter, unchanged) => store.update(filter, set, unchanged), notUpdated)
    },
    async delete(caller, id, pre) {
      const filter = await itemOf(caller, id, notDeleted, 'delete')
      const target = { key: context.etagKey, read: () => store.findSnapshot(filter), find: () => store.findOne(filter) }
      if (!(await conditionalWrite(pre, target, notDeleted, (unchanged) => store.remove(filter, unchanged)))) throw notDeleted()
    },
    async patch(caller, id, type, patch, pre) {
      const write = (writer: Caller, docId: string, body: WireDoc, at: Preconditions) => replaceDoc(writer, docId, body, at, true, notUpdated)
      const fields = await roleFields(context, caller, patching.shown)
      return patchDocument({ ...patching, ...fields, typed: context.typed, kept: new Set(keepOnReplace), tagKey: () => context.etagKey, read: snapshotOf, write }, caller, id, type, patch, pre)
    },
  }
}

/** How the router's documents are found: by the path's id, under what the caller may do with them (`op`). */
function documentReads(context: RouterContext) {
  const { store } = context
  async function itemOf(caller: Caller, id: string, refused: () => Error, op: AccessOp = 'read'): Promise<Filter> {
    const filter = await context.itemFilter(caller.request, id, op)
    if (filter === undefined) throw refused()
    return filter
  }
  return {
    itemOf,
    /** The document of the path as stored (for a patch), or `notUpdated` when there is none. */
    async snapshotOf(caller: Caller, id: string) {
      const snapshot = await store.findSnapshot(await itemOf(caller, id, notUpdated, 'update'))
      if (snapshot === undefined) throw notUpdated()
      return snapshot
    },
    /** The document of the path, or `refused` when there is none: GET's not found, a patch's `notUpdated`. */
    async find(caller: Caller, id: string, refused: () => Error, fields?: readonly string[]): Promise<WireDoc> {
      const doc = await store.findOne(await itemOf(caller, id, refused), fields)
      if (doc === undefined) throw refused()
      return doc
    },
  }
}

/** What a PUT keeps besides `keepOnReplace`: the fields the caller's role does not see or may not set, when the body leaves them out. */
async function keptForRole(context: RouterContext, caller: Caller, doc: WireDoc, keepOnReplace: string[], roleChecked: boolean): Promise<string[]> {
  if (!roleChecked) await refuseRoleFields(context, caller.request, Object.keys(doc), 'update')
  const access = await context.access(caller.request)
  return [...keepOnReplace, ...[...access.hidden, ...access.readOnly].filter((field) => !Object.hasOwn(doc, field))]
}

/** What a patch of the caller's role may name: what it does not see is not patchable (nor tested); what it may not set, refused by name. */
async function roleFields(context: RouterContext, caller: Caller, shown: ReadonlySet<string>) {
  const access = await context.access(caller.request)
  return {
    shown: access.hidden.size === 0 ? shown : new Set([...shown].filter((field) => !access.hidden.has(field))),
    readOnly: access.readOnly.size === 0 ? undefined : { role: access.role ?? '', fields: access.readOnly },
  }
}

/** What a replace keeps and what it decides. */
function replaceRules(context: RouterContext): { keepOnReplace: string[], replaced: (field: string) => boolean } {
  // Embedded item arrays are managed by their own routes: replacing the parent keeps them.
  const keepOnReplace = context.options.embeds.map((embed) => embed.embedName)
  // What a PUT decides: the model's fields (sent, or removed when left out); the rest is kept.
  const declared = new Set(context.typed.kind === 'object' ? context.typed.fields.keys() : [])
  return { keepOnReplace, replaced: (field) => declared.has(field) && field !== '_id' && !keepOnReplace.includes(field) }
}
