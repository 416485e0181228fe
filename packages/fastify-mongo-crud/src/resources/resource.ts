import type { Preconditions } from '../core/conditional-request.js'
import type { PreparedPage } from '../core/list-page.js'
import type { Caller } from '../core/router-context.js'
import type { ListPresenter, ListSource } from '../core/serve-list.js'
import type { PatchMediaType } from '../patch/patch-media-types.js'
import type { GroupFields } from '../query/group-fields.js'
import type { GroupsQueryString } from '../query/group-query.js'
import type { ListQuery, ListQueryString } from '../query/list-query.js'
import type { WireDoc } from '../store/store.js'

/**
 * The operations of one kind of resource: the router's collection, a lookup's children, an embed's
 * items. Every HTTP route of every kind (http/handlers.ts) and the service API are thin adapters over
 * it, so a capability written here holds on every route that offers the operation.
 *
 * An operation takes what parsing completed (the caller, the id of the path, a validated body, the
 * preconditions sent) and either answers the stored document or throws the catalog's error, with its
 * own status: nothing maps errors a second time. Documents are answered as stored (`present` makes them
 * what GET one shows), so a route can tag them before they are fitted to the output model.
 */
export interface Resource {
  /** Shows a list's documents (populated, fitted, serialized). */
  readonly presenter: ListPresenter
  /** Where the identifier of a created document is (its `Location`): `id`, or the identifier field. */
  readonly idKey: string
  /**
   * `fields=` of GET one, checked against the kind's output model and what the caller's role sees
   * (query/parse-fields.ts); undefined without `fields=` (the whole document is read, and tagged).
   */
  selectFields(caller: Caller, raw: string | undefined): Promise<string[] | undefined>
  /** False where GET one may not answer 304: a populated document can change with its references. */
  readonly conditionalReads: boolean
  /** The key of the caller's tags (core/etag.ts): bound to the collection, and for items to the parent. */
  tagKey(caller: Caller): string
  /** A stored document as GET one answers it (references populated). */
  present(doc: WireDoc, caller: Caller): Promise<WireDoc>
  /** The list a request asks for: its query complete (scope, parent, default sort, fields, cursor) and its source. */
  list(caller: Caller, raw: ListQueryString): Promise<ResolvedList>
  /** What `_groups` may group by and measure (the fields the list filters on), with their model types. */
  readonly groupFields: GroupFields
  /** The list's documents (its filter, scope and parent) grouped and measured (docs/groups.md), as answered. */
  groups(caller: Caller, raw: GroupsQueryString): Promise<WireDoc[]>
  /** The document of the path (only `fields` of it when given); the kind's "not found" when there is none. */
  get(caller: Caller, id: string, fields?: readonly string[]): Promise<WireDoc>
  create(caller: Caller, body: WireDoc, preconditions: Preconditions): Promise<WireDoc>
  /** Undefined where the kind has no replace (embedded items are patched, or replaced with their parent). */
  readonly replace?: (caller: Caller, id: string, body: WireDoc, preconditions: Preconditions) => Promise<WireDoc>
  update(caller: Caller, id: string, changes: WireDoc, preconditions: Preconditions): Promise<WireDoc>
  delete(caller: Caller, id: string, preconditions: Preconditions): Promise<void>
  /** A merge patch or a JSON Patch of the document (resources/patch-document.ts), as PATCH takes them besides `application/json`. */
  patch(caller: Caller, id: string, type: Exclude<PatchMediaType, 'application/json'>, patch: unknown, preconditions: Preconditions): Promise<WireDoc>
}

/** What patching a kind's documents needs besides its operations: the model's check of a whole document, and the fields shown. */
export interface PatchModel {
  /** The PUT body's check (the model; for lookup children without the foreign field required). */
  readonly check: (doc: WireDoc) => WireDoc
  /** Top-level fields of the output model. */
  readonly shown: ReadonlySet<string>
}

/** A list resolved: the query the store reads, what the page becomes before it is shown (its next `Link`). */
interface ResolvedList {
  readonly query: ListQuery
  readonly source: ListSource
  readonly onPage?: PreparedPage['onPage']
}

export type { Preconditions }
