import type { FastifyRequest } from 'fastify'
import type { Dependency, FilterDependency, RouteDependencies } from './dependency.js'
import { SetupError } from './errors.js'
import { type InModel, isModel, isModelOut, type MongoModelSchema, type OutModel, type Static } from './models.js'
import type { FilterLimits } from './query/parse-filter.js'
import { CRUDEmbed } from './relations/crud-embed.js'
import { CRUDLookup } from './relations/crud-lookup.js'
import { CRUDPopulate } from './relations/crud-populate.js'
import { checkDependencies, checkDisabled, describeValue } from './relations/relation-options.js'
import { camel, ROUTE_NAMES, type RouteName } from './route-names.js'
import type { DriverDb } from './store/driver-db.js'

// Their homes are dependency.ts and route-names.ts; re-exported for the route files that import them from here.
export type { Dependency, RouteName }

/** `'_id'`, or a top-level field of the model other than `id` (the API name of `_id`: say `'_id'`). */
export type IdentifierField<M extends InModel> = '_id' | Exclude<keyof Static<M> & string, 'id'>

/** A field path of the stored model that an index may cover: `'_id'`, a model field, or a dotted path under one. */
export type IndexField<M extends InModel> = '_id' | (keyof Static<M> & string) | `${keyof Static<M> & string}.${string}`

/**
 * An index the router declares on its collection at registration (`createIndex`, idempotent), on
 * MongoDB and on the embedded engine alike. `key` maps stored field paths to 1 (ascending) or -1.
 */
export interface RouterIndex<M extends InModel = InModel> {
  key: Partial<Record<IndexField<M>, 1 | -1>>
  unique?: boolean
  name?: string
}

/**
 * Options of `CRUDRouter`, typed after the input model `M` and the output model `O` (both inferred from
 * what `app.register(CRUDRouter, { ... })` receives).
 */
export interface CRUDRouterOptions<M extends InModel = InModel, O extends OutModel = OutModel> extends RouteDependencies<M> {
  model: M
  db: DriverDb
  collectionName: string
  prefix?: string
  tags?: string[]
  /**
   * The router's name, a plural identifier: its operationIds (`listUsers`, `getUser`), its summaries and
   * its service (`crudService(app, name)`). Default: the collection name as an identifier.
   */
  name?: string
  /** The singular of `name` (`getPerson`); default: `name` without its plural ending (`users` -> `user`). */
  singular?: string
  identifierField?: IdentifierField<M>
  /** Indexes created on the collection at registration; an `identifierField` gets its unique index without one. */
  indexes?: RouterIndex<M>[]
  modelOut?: O
  lookups?: CRUDLookup[]
  embeds?: CRUDEmbed[]
  populates?: CRUDPopulate[]
  disableGetAll?: boolean
  disableGetOne?: boolean
  disableCreateOne?: boolean
  disableReplaceOne?: boolean
  disableUpdateOne?: boolean
  disableDeleteOne?: boolean
  filterDependency?: FilterDependency<M>
  /**
   * What the list does with client `filters` under a `filterDependency` scope: `'ignore'` them
   * (SPEC §4.2 rule 4, the default) or `'and'` them with the scope, so scoped lists can search.
   */
  filtersUnderScope?: 'ignore' | 'and'
  /**
   * Whether a create under a `filterDependency` scope may choose its document's `id`: `'refuse'` (the
   * default) answers 422 to a body with an `id`. `'allow'` accepts it, and opens an oracle: ids are
   * unique across scopes, so a create answering "not created" (or 412 with `If-None-Match: *`) tells
   * the caller that some other caller's document has that id.
   */
  clientIdsUnderScope?: 'refuse' | 'allow'
  /** Status of "Document not found" answers: 400 as the spec says, or 404. */
  notFoundStatus?: 400 | 404
  /** Fields clients may filter on (dotted paths); default: the output model's fields. */
  filterable?: string[]
  /** Fields clients may sort on; default: the output model's fields. */
  sortable?: string[]
  /** `limit` applied when the client sends none; default: unbounded (streamed). */
  defaultLimit?: number
  maxLimit?: number
  maxSkip?: number
  /** Server-side time limit of every database query, in milliseconds. */
  maxTimeMS?: number
  filterLimits?: Partial<FilterLimits>
  /** Streamed lists (no `limit`, or above 1000) served at once by this router; past it, 503. Default 64. */
  maxStreams?: number
  /** Milliseconds a streamed list waits for its client to read before disconnecting it. Default 30 000. */
  streamIdleTimeout?: number
  /**
   * The list's sort when the request sends no `sort_by` (a sortable field; `direction` 1 or -1, default 1).
   * A request's `order_by` or `sort_dir` alone turns it around.
   */
  defaultSort?: { field: string, direction?: 1 | -1 }
  /**
   * Secret that seals the list's page cursors (at least 32 characters or bytes). Default: random per
   * process, so set it when several instances serve one API: a cursor from one must work on the others.
   */
  cursorSecret?: string | Buffer
  /**
   * Secret key of the ETags (HMAC-SHA256 of the stored document, docs/conditional-requests.md). Give every
   * instance of the app the same key (16 characters or more) so their tags agree; default: a random key per process.
   */
  etagKey?: string
}

export interface ResolvedRouterOptions {
  readonly model: MongoModelSchema
  readonly modelOut: MongoModelSchema | undefined
  readonly db: DriverDb
  readonly collectionName: string
  readonly tags: readonly string[]
  /** Set by the user, or undefined for the collection's name (plugin.ts resolves it against the app's other routers). */
  readonly name: string | undefined
  readonly singular: string | undefined
  readonly identifierField: string
  /** The declared indexes, then the identifier field's unique index when it is not `_id`. */
  readonly indexes: readonly ResolvedIndex[]
  readonly lookups: readonly CRUDLookup[]
  readonly embeds: readonly CRUDEmbed[]
  readonly populates: readonly CRUDPopulate[]
  readonly disabled: ReadonlySet<RouteName>
  readonly dependencies: Readonly<Record<RouteName, readonly Dependency[]>>
  readonly filterDependency: ((request: FastifyRequest) => unknown) | undefined
  readonly filtersUnderScope: 'ignore' | 'and'
  readonly clientIdsUnderScope: 'refuse' | 'allow'
  readonly notFoundStatus: 400 | 404
  readonly filterable: readonly string[] | undefined
  readonly sortable: readonly string[] | undefined
  readonly defaultLimit: number | undefined
  readonly maxLimit: number | undefined
  readonly maxSkip: number | undefined
  readonly maxTimeMS: number | undefined
  readonly filterLimits: Readonly<FilterLimits>
  readonly maxStreams: number | undefined
  readonly streamIdleTimeout: number | undefined
  readonly defaultSort: { readonly field: string, readonly direction: 1 | -1 } | undefined
  readonly cursorSecret: string | Buffer | undefined
  readonly etagKey: string | undefined
}

export interface ResolvedIndex {
  readonly key: Readonly<Record<string, 1 | -1>>
  readonly unique: boolean
  readonly name: string | undefined
}

export { ROUTE_NAMES }

/** Built-in ceilings that hold even when the user configures nothing. */
export const DEFAULT_FILTER_LIMITS: FilterLimits = {
  maxDepth: 10,
  maxNodes: 500,
  maxIn: 1000,
  maxRegexLength: 256,
  regexOptions: 'imsx',
}

/** Keys people carry over from the Python original or guess; each names its replacement. */
const RENAMED: Record<string, string> = {
  collection_name: 'collectionName',
  model_out: 'modelOut',
  identifier_field: 'identifierField',
  filter_dependency: 'filterDependency',
  dependencies: 'one of dependenciesGetAll, dependenciesGetOne, dependenciesCreateOne, dependenciesReplaceOne, dependenciesUpdateOne, dependenciesDeleteOne (there is no shared list)',
  collection: 'collectionName',
}

const fail = (message: string) => new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: ${message}`)

/** Validates the router's options once, at registration, into a frozen object. */
export function resolveRouterOptions(input: CRUDRouterOptions): ResolvedRouterOptions {
  const raw = input as unknown as Record<string, unknown>
  for (const key of Object.keys(raw)) {
    const replacement = RENAMED[key] ?? (/_/.test(key) && key.startsWith('disable_') ? camel(key) : undefined)
    if (replacement !== undefined) throw fail(`unknown option '${key}': use ${replacement}`)
    if (key.startsWith('dependencies_')) throw fail(`unknown option '${key}': use ${camel(key)}`)
  }
  if (!isModel(raw['model'])) throw fail(`'model' must be a model made by MongoModel(), received ${describeValue(raw['model'])}`)
  const model = raw['model']
  const modelOut = raw['modelOut']
  if (modelOut !== undefined && !isModelOut(modelOut)) {
    throw fail(`'modelOut' must be a model made by MongoModelOut(), received ${describeValue(modelOut)}`)
  }
  const db = raw['db'] as DriverDb | undefined
  if (typeof db !== 'object' || db === null || typeof db.collection !== 'function') {
    throw fail(`'db' must be a database handle (the driver's Db or openEmbedded()), received ${describeValue(db)}`)
  }
  const collectionName = raw['collectionName']
  if (typeof collectionName !== 'string' || collectionName === '' || collectionName.includes('$') || collectionName.startsWith('system.')) {
    throw fail(`'collectionName' must be a valid collection name, received ${describeValue(collectionName)}`)
  }
  const identifierField = optional(raw, 'identifierField', 'string') ?? '_id'
  if (identifierField !== '_id' && (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(identifierField) || !(identifierField in model.properties))) {
    throw fail(`'identifierField' must be '_id' or a top-level field of the model, received ${JSON.stringify(identifierField)}`)
  }
  const tags = raw['tags'] ?? []
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) throw fail(`'tags' must be an array of strings, received ${describeValue(tags)}`)
  const name = optional(raw, 'name', 'string')
  const singular = optional(raw, 'singular', 'string')
  for (const [key, value] of [['name', name], ['singular', singular]] as const) {
    if (value !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw fail(`'${key}' must be an identifier (letters, digits, _), received ${JSON.stringify(value)}`)
  }
  const disabled = checkDisabled('CRUDRouter', 'FMC_ERR_OPTIONS_INVALID', raw)
  const deps = checkDependencies('CRUDRouter', 'FMC_ERR_OPTIONS_INVALID', raw)
  const filterDependency = raw['filterDependency']
  if (filterDependency !== undefined && typeof filterDependency !== 'function') {
    throw fail(`'filterDependency' must be a function, received ${describeValue(filterDependency)}`)
  }
  const filtersUnderScope = oneOf(raw, 'filtersUnderScope', ['ignore', 'and'] as const)
  const clientIdsUnderScope = oneOf(raw, 'clientIdsUnderScope', ['refuse', 'allow'] as const)
  const etagKey = optional(raw, 'etagKey', 'string')
  if (etagKey !== undefined && etagKey.length < 16) throw fail(`'etagKey' must be a secret of 16 characters or more, received one of ${etagKey.length}`)
  const notFoundStatus = oneOf(raw, 'notFoundStatus', [400, 404] as const)
  return Object.freeze({
    model,
    modelOut: modelOut as MongoModelSchema | undefined,
    db,
    collectionName,
    tags: Object.freeze([...tags]),
    name,
    singular,
    identifierField,
    indexes: resolveIndexes(raw['indexes'], model, identifierField),
    lookups: instances(raw, 'lookups', CRUDLookup),
    embeds: instances(raw, 'embeds', CRUDEmbed),
    populates: instances(raw, 'populates', CRUDPopulate),
    disabled,
    dependencies: Object.freeze(Object.fromEntries(ROUTE_NAMES.map((name) => [name, deps[`dependencies${name}`]]))) as Record<RouteName, Dependency[]>,
    filterDependency: filterDependency as ResolvedRouterOptions['filterDependency'],
    filtersUnderScope,
    clientIdsUnderScope,
    notFoundStatus,
    filterable: stringList(raw, 'filterable'),
    sortable: stringList(raw, 'sortable'),
    defaultLimit: positiveInteger(raw, 'defaultLimit', 1),
    maxLimit: positiveInteger(raw, 'maxLimit', 1),
    maxSkip: positiveInteger(raw, 'maxSkip', 0),
    maxTimeMS: positiveInteger(raw, 'maxTimeMS', 1),
    filterLimits: resolveFilterLimits(raw['filterLimits']),
    maxStreams: positiveInteger(raw, 'maxStreams', 1),
    streamIdleTimeout: positiveInteger(raw, 'streamIdleTimeout', 1),
    defaultSort: resolveDefaultSort(raw['defaultSort']),
    cursorSecret: resolveCursorSecret(raw['cursorSecret']),
    etagKey,
  })
}

/** The shape of `defaultSort`; whether its field is sortable is checked against the model by the list route. */
function resolveDefaultSort(value: unknown): ResolvedRouterOptions['defaultSort'] {
  if (value === undefined) return undefined
  const { field, direction = 1, ...unknown } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof field !== 'string' || field === '') {
    throw fail(`'defaultSort' must be { field, direction? } with a sortable field name, received ${describeValue(value)}`)
  }
  if (Object.keys(unknown).length > 0) throw fail(`'defaultSort' has unknown key(s) ${Object.keys(unknown).map((k) => `'${k}'`).join(', ')}: it takes field and direction`)
  if (direction !== 1 && direction !== -1) throw fail(`'defaultSort.direction' must be 1 or -1, received ${describeValue(direction)}`)
  return Object.freeze({ field, direction })
}

function resolveCursorSecret(value: unknown): string | Buffer | undefined {
  if (value === undefined) return undefined
  const length = typeof value === 'string' ? value.length : Buffer.isBuffer(value) ? value.length : -1
  if (length < 32) throw fail(`'cursorSecret' must be a string or Buffer of at least 32 characters or bytes, received ${length < 0 ? describeValue(value) : `one of ${length}`}`)
  return value as string | Buffer
}

function optional<T extends 'string' | 'boolean'>(raw: Record<string, unknown>, key: string, type: T): (T extends 'string' ? string : boolean) | undefined {
  const value = raw[key]
  if (value === undefined) return undefined
  if (typeof value !== type) throw fail(`'${key}' must be a ${type}, received ${describeValue(value)}`)
  return value as T extends 'string' ? string : boolean
}

/** One of `values`, the first when the key is left out. */
function oneOf<const T extends string | number>(raw: Record<string, unknown>, key: string, values: readonly [T, ...T[]]): T {
  const value = raw[key] ?? values[0]
  if (!values.includes(value as T)) {
    throw fail(`'${key}' must be ${values.map((v) => JSON.stringify(v).replaceAll('"', "'")).join(' or ')}, received ${describeValue(value)}`)
  }
  return value as T
}

function positiveInteger(raw: Record<string, unknown>, key: string, min: number): number | undefined {
  const value = raw[key]
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw fail(`'${key}' must be an integer >= ${min}, received ${describeValue(value)}`)
  }
  return value
}

function stringList(raw: Record<string, unknown>, key: string): readonly string[] | undefined {
  const value = raw[key]
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) {
    throw fail(`'${key}' must be an array of field paths, received ${describeValue(value)}`)
  }
  return Object.freeze([...value])
}

function instances<T>(raw: Record<string, unknown>, key: string, type: new (...args: never[]) => T): readonly T[] {
  const value = raw[key] ?? []
  if (!Array.isArray(value) || !value.every((v) => v instanceof type)) {
    throw fail(`'${key}' must be an array of ${type.name} instances, received ${describeValue(value)}`)
  }
  return Object.freeze([...value])
}

function resolveFilterLimits(value: unknown): FilterLimits {
  if (value === undefined) return DEFAULT_FILTER_LIMITS
  if (typeof value !== 'object' || value === null) throw fail(`'filterLimits' must be an object, received ${describeValue(value)}`)
  const limits = { ...DEFAULT_FILTER_LIMITS, ...(value as Partial<FilterLimits>) }
  for (const key of ['maxDepth', 'maxNodes', 'maxIn', 'maxRegexLength'] as const) {
    if (!Number.isInteger(limits[key]) || limits[key] < 1) throw fail(`'filterLimits.${key}' must be a positive integer, received ${describeValue(limits[key])}`)
  }
  if (typeof limits.regexOptions !== 'string' || ![...limits.regexOptions].every((c) => 'imsx'.includes(c))) {
    throw fail(`'filterLimits.regexOptions' must use only the letters imsx, received ${describeValue(limits.regexOptions)}`)
  }
  return Object.freeze(limits)
}

/** Checks the declared indexes against the model: a misspelt field would index nothing, silently. */
function resolveIndexes(value: unknown, model: MongoModelSchema, identifierField: string): readonly ResolvedIndex[] {
  const declared = value ?? []
  if (!Array.isArray(declared)) throw fail(`'indexes' must be an array of { key, unique?, name? }, received ${describeValue(declared)}`)
  const indexes = declared.map((entry: unknown, position): ResolvedIndex => {
    const at = `'indexes[${position}]'`
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw fail(`${at} must be an object { key, unique?, name? }, received ${describeValue(entry)}`)
    const { key, unique = false, name, ...unknown } = entry as Record<string, unknown>
    const extra = Object.keys(unknown)
    if (extra.length > 0) throw fail(`${at} has unknown key(s) ${extra.map((k) => `'${k}'`).join(', ')}: it takes key, unique and name`)
    if (typeof key !== 'object' || key === null || Array.isArray(key) || Object.keys(key).length === 0) {
      throw fail(`${at}.key must be a non-empty object of field paths to 1 or -1, received ${describeValue(key)}`)
    }
    for (const [field, direction] of Object.entries(key)) {
      const top = field.split('.')[0]!
      if (field !== '_id' && (!(top in model.properties) || field.split('.').some((segment) => segment === '' || segment.startsWith('$')))) {
        throw fail(`${at}.key names '${field}', which is not '_id' or a field of the model`)
      }
      if (direction !== 1 && direction !== -1) throw fail(`${at}.key.${field} must be 1 or -1, received ${describeValue(direction)}`)
    }
    if (typeof unique !== 'boolean') throw fail(`${at}.unique must be a boolean, received ${describeValue(unique)}`)
    if (name !== undefined && (typeof name !== 'string' || name === '')) throw fail(`${at}.name must be a non-empty string, received ${describeValue(name)}`)
    return Object.freeze({ key: Object.freeze({ ...(key as Record<string, 1 | -1>) }), unique, name: name as string | undefined })
  })
  // The identifier field must be unique; its index keeps the name it has always had.
  if (identifierField !== '_id') indexes.push(Object.freeze({ key: Object.freeze({ [identifierField]: 1 as const }), unique: true, name: `${identifierField}_unique` }))
  return Object.freeze(indexes)
}
