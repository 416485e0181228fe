import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import type { PopulateReader } from '../app-registry.js'
import { appRegistry } from '../app-registry.js'
import { Pacer } from '../core/pacer.js'
import type { Caller } from '../core/router-context.js'
import { SetupError } from '../errors.js'
import type { MongoModelSchema } from '../models.js'
import type { CRUDPopulate } from '../options/crud-populate.js'
import type { ResolvedRouterOptions } from '../options.js'
import { buildShape, nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { createCollectionStore } from '../store/collection-store.js'
import type { WireDoc } from '../store/store.js'

/** Replaces reference ids by the referenced documents, for GET list and GET one. */
export interface Populator {
  /** The output schema with each populated field typed as its documents (`<Out>Populated`). */
  readonly outSchema: MongoModelSchema
  /** Schemas the output schema refers to, to register as components. */
  readonly schemas: readonly TSchema[]
  /**
   * One `$in` query per populated field for the whole page (one per 5,000 distinct ids), never one per
   * document, read as the router serving the target collection would answer it to `caller`
   * (relations/populate-reader.ts).
   */
  populate(docs: WireDoc[], caller: Caller): Promise<WireDoc[]>
  /**
   * How many references `populate` reads for `doc`: the ids its populated fields hold (at most 1,000 a
   * field). A large page is populated in batches bounded by these (core/serve-list.ts).
   */
  references(doc: WireDoc): number
  /**
   * Whether clients may not name `field` (a top-level field) in `filters`, `sort_by` or `_groups`: it is
   * populated, and what its target router answers depends on the caller (a row scope, GetOne
   * dependencies), or that router is not known yet. A filter, a sort or a group on the ids would tell
   * what GET hides: that a board holds the id of a note the caller may not read, or how many it holds.
   */
  guards(field: string): boolean
  /**
   * Chooses the output model of each populate declared without one: the `modelOut` of a router of
   * the app serving the target collection. Called once every router has registered; returns, for each
   * populate left with its full model, a warning naming the fields it exposes.
   */
  resolve(
    find: (collection: string) => { modelOut: MongoModelSchema, place: string } | undefined,
    readers: (collection: string) => readonly PopulateReader[]
  ): string[]
}

interface PlannedPopulate {
  field: string
  many: boolean
  collection: string
  /** Reads the target's documents for a caller; until `resolve`, as declared (no router known). */
  read: (ids: readonly string[], caller: Caller) => Promise<WireDoc[]>
  /** Clients may not name the field (`Populator.guards`); until `resolve`, they may not (nothing is known of the target). */
  guarded: boolean
}

/**
 * The ids one document's populated field has read: a list of references longer than this shows its
 * first ones. A stored array of ids can be long (clients write it); what one request reads must not be.
 */
const MAX_POPULATED_IDS = 1000
/** The ids one `$in` query reads at most: a page referencing more is read in several queries, one after another. */
const IDS_PER_QUERY = 5000

const fail = (message: string) => new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: ${message}`)

export function buildPopulator(options: ResolvedRouterOptions, baseOut: MongoModelSchema, typed: ShapeNode): Populator | undefined {
  if (options.populates.length === 0) return undefined
  const planned: PlannedPopulate[] = []
  const properties: Record<string, unknown> = { ...baseOut.properties }
  const schemas: TSchema[] = []
  const unresolved: Array<{ populate: CRUDPopulate, many: boolean }> = []
  for (const populate of options.populates) {
    const many = checkField(populate, options, typed)
    const target = populate.modelOut ?? populate.model
    schemas.push(target)
    // A field the output model hides stays hidden: it is neither populated nor shown.
    if (!(populate.field in baseOut.properties)) continue
    properties[populate.field] = many ? { type: 'array', items: { $ref: `${target.$id}#` } } : nullableCopy(target)
    if (populate.modelOut === undefined) unresolved.push({ populate, many })
    const store = createCollectionStore(options.db, populate.collection, buildShape(populate.model), { maxTimeMS: options.maxTimeMS })
    planned.push({ field: populate.field, many, collection: populate.collection, read: (ids) => store.findByIds(ids), guarded: true })
  }
  const outSchema = { ...baseOut, $id: `${baseOut.$id}Populated`, properties } as MongoModelSchema
  return {
    outSchema,
    schemas,
    resolve(find, readers) {
      for (const plan of planned) {
        const serving = readers(plan.collection)
        // Read as every router of the app serving the collection would answer: a document one of
        // them hides from the caller is missing (an admin router beside a scoped one widens nothing).
        // Without one, the collection is read as declared: the same documents for every caller.
        if (serving.length > 0) plan.read = (ids, caller) => readThroughAll(serving, ids, caller)
        plan.guarded = serving.some((reader) => reader.dependsOnCaller)
      }
      const warnings = listedGuardedFields(planned, options)
      for (const { populate, many } of unresolved) {
        const served = find(populate.collection)
        if (served === undefined) {
          const fields = Object.keys(populate.model.properties).join(', ')
          warnings.push(
            `CRUDPopulate of '${populate.field}' shows every field of ${populate.model.$id} (${fields}): no CRUDRouter of this app serves '${populate.collection}' with a modelOut. Give the populate a modelOut to choose what it shows`
          )
          continue
        }
        // Inline, so the serializer needs no schema registered by the other router.
        properties[populate.field] = many ? { type: 'array', items: objectCopy(served.modelOut) } : nullableCopy(served.modelOut)
      }
      return warnings
    },
    guards: (field) => planned.some((plan) => plan.field === field && plan.guarded),
    references(doc) {
      let count = 0
      for (const { field } of planned) count += referenceCount(doc[field])
      return count
    },
    async populate(docs, caller) {
      // A page can reference many documents (1,000 ids each): its loops let the event loop run between slices.
      const pacer = new Pacer()
      for (const { field, many, read } of planned) {
        const ids = new Set<string>()
        for (const doc of docs) {
          for (const id of idsIn(doc[field])) ids.add(id)
          await pacer.pace()
        }
        if (ids.size === 0) continue
        const found = new Map<string, WireDoc>()
        const wanted = [...ids]
        for (let start = 0; start < wanted.length; start += IDS_PER_QUERY) {
          for (const doc of await read(wanted.slice(start, start + IDS_PER_QUERY), caller)) found.set(doc['id'] as string, doc)
        }
        for (const doc of docs) {
          const value = doc[field]
          if (value === undefined) continue
          // Id order is kept; ids whose documents no longer exist are dropped (or null for a single id).
          doc[field] = many
            ? idsIn(value).flatMap((id) => found.get(id) ?? [])
            : typeof value === 'string' ? (found.get(value) ?? null) : null
          await pacer.pace()
        }
      }
      return docs
    },
  }
}

/**
 * Populates declared without `modelOut` show what the router serving their collection shows. The
 * returned function resolves them once, when every router of the app has registered (serializers
 * compile when the app gets ready); the component Fastify keeps for OpenAPI is a copy made at
 * registration, updated alongside.
 */
export function resolvePopulatesOnce(fastify: FastifyInstance, db: object, populator: Populator | undefined): () => void {
  let done = populator === undefined
  return () => {
    if (done || populator === undefined) return
    done = true
    const registry = appRegistry(fastify)
    const warnings = populator.resolve((collection) => registry.modelOutFor(db, collection), (collection) => registry.readersFor(db, collection))
    for (const warning of warnings) fastify.log.warn(warning)
    const component = fastify.getSchema(populator.outSchema.$id) as { properties: object } | undefined
    if (component !== undefined) component.properties = populator.outSchema.properties
  }
}

/**
 * A single reference is the document or null. Serializers pick `anyOf` branches by validating the
 * value, and a stored document with extra fields matches no branch; a nullable object with the
 * target's properties is serialized field by field instead, so extra (hidden) fields are dropped.
 * `required` is left out: a referenced document written elsewhere may lack a field.
 */
function nullableCopy(target: MongoModelSchema): object {
  return {
    type: ['object', 'null'],
    title: target.$id,
    description: `The referenced ${target.$id}, or null when it no longer exists`,
    properties: target.properties,
    additionalProperties: false,
  }
}

/** An item of a list of references: the target's fields, nothing else. */
function objectCopy(target: MongoModelSchema): object {
  const required = (target as { required?: string[] }).required
  return {
    type: 'object',
    title: target.$id,
    properties: target.properties,
    ...(required === undefined ? {} : { required }),
    additionalProperties: false,
  }
}

/**
 * A warning for each guarded field `filterable` or `sortable` lists, or `defaultSort` sorts by: whether it
 * is guarded is known only once every router has registered (the target's may register after this one),
 * so none is a setup error. Requests naming it are refused (422) as when it is not listed; the router's
 * own `defaultSort` is server code, and keeps sorting by it.
 */
function listedGuardedFields(planned: readonly PlannedPopulate[], options: ResolvedRouterOptions): string[] {
  const warnings: string[] = []
  for (const { field, collection, guarded } of planned) {
    if (!guarded) continue
    const held = `holds references to documents of '${collection}' that a router of this app shows only to some callers (a row scope or GetOne dependencies)`
    const lists = (['filterable', 'sortable'] as const).filter((name) => options[name]?.includes(field) === true)
    if (lists.length > 0) warnings.push(`'${field}' is listed in ${lists.join(' and ')}, but it ${held}: requests naming it in filters, sort_by or _groups are refused (422)`)
    if (options.defaultSort?.field === field) warnings.push(`defaultSort sorts by '${field}', which ${held}: the order of the list tells callers which documents hold references GET does not show them`)
  }
  return warnings
}

/** The ids of a populated field, the first MAX_POPULATED_IDS of a list. */
function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  return Array.isArray(value) ? value.slice(0, MAX_POPULATED_IDS).filter((v): v is string => typeof v === 'string') : []
}

/** How many ids `idsIn` reads from a populated field, counted without copying them (an upper bound: non-strings included). */
function referenceCount(value: unknown): number {
  if (typeof value === 'string') return 1
  return Array.isArray(value) ? Math.min(value.length, MAX_POPULATED_IDS) : 0
}

/** The documents every reader answers: the first reader's, kept when each of the others has them too. */
async function readThroughAll(readers: readonly PopulateReader[], ids: readonly string[], caller: Caller): Promise<WireDoc[]> {
  let docs = await readers[0]!.read(ids, caller)
  for (const reader of readers.slice(1)) {
    if (docs.length === 0) break
    // Each router leaves out what the caller's role there does not see: only what every one shows is shown.
    const shown = new Map((await reader.read(docs.map((doc) => doc['id'] as string), caller)).map((doc) => [doc['id'], doc]))
    docs = docs.flatMap((doc) => {
      const other = shown.get(doc['id'])
      return other === undefined ? [] : [Object.fromEntries(Object.entries(doc).filter(([field]) => Object.hasOwn(other, field)))]
    })
  }
  return docs
}

/** The field must be a top-level ObjectId or array of ObjectIds; returns whether it is an array. */
function checkField(populate: CRUDPopulate, options: ResolvedRouterOptions, typed: ShapeNode): boolean {
  if (populate.collection === options.collectionName) {
    throw fail(`populate of '${populate.field}' points at the router's own collection '${populate.collection}'; self-references are not supported (they could nest without end)`)
  }
  const node = nodeAt(typed, [populate.field])
  if (node?.kind === 'objectId') return false
  if (node?.kind === 'array' && node.item.kind === 'objectId') return true
  throw fail(`populate field '${populate.field}' must be a field of the model declared as ObjectIdField() or an array of them`)
}
