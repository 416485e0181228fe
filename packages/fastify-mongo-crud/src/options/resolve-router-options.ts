import type { Dependency } from '../dependency.js'
import { SetupError } from '../errors.js'
import { isModel, isModelOut, type MongoModelSchema } from '../models.js'
import type { FilterLimits } from '../query/parse-filter.js'
import { camel, EXTRA_ROUTE_NAMES, ROUTE_NAMES, type RouteName } from '../route-names.js'
import type { DriverDb } from '../store/driver-db.js'
import { optionValueProblem } from './check-option-values.js'
import { CRUDEmbed } from './crud-embed.js'
import { CRUDLookup } from './crud-lookup.js'
import { CRUDPopulate } from './crud-populate.js'
import { checkDependencies, checkDisabled, describeValue } from './relation-options.js'
import { routerFieldProblems } from './router-field-problems.js'
import type { PlainRouterOptions } from './router-option-schemas.js'
import type { CRUDRouterOptions, ResolvedIndex, ResolvedRouterOptions } from './router-option-types.js'

/** Built-in ceilings that hold even when the user configures nothing. */
export const DEFAULT_FILTER_LIMITS: FilterLimits = {
  maxDepth: 10,
  maxNodes: 500,
  maxIn: 1000,
  maxRegexLength: 256,
  regexOptions: 'imsx',
}

/** The most groups one `_groups` answer holds unless the router says otherwise. */
export const DEFAULT_MAX_GROUPS = 1000

/** The most operations one `_batch` request carries unless the router says otherwise (docs/batch.md). */
export const DEFAULT_MAX_BATCH_OPERATIONS = 100

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

/**
 * Validates the router's options once, at registration, into a frozen object: renamed keys first, then
 * what is not JSON (models, db, functions, relations), then the plain values against their declarations,
 * then the fields they name against the model.
 */
export function resolveRouterOptions(input: CRUDRouterOptions): ResolvedRouterOptions {
  const raw = input as unknown as Record<string, unknown>
  refuseRenamedKeys(raw)
  const { model, modelOut, db } = checkHandles(raw)
  const disabled = checkDisabled('CRUDRouter', 'FMC_ERR_OPTIONS_INVALID', raw)
  const deps = checkDependencies('CRUDRouter', 'FMC_ERR_OPTIONS_INVALID', raw)
  const filterDependency = raw['filterDependency']
  if (filterDependency !== undefined && typeof filterDependency !== 'function') {
    throw fail(`'filterDependency' must be a function, received ${describeValue(filterDependency)}`)
  }
  const accessClaims = raw['accessClaims']
  if (accessClaims !== undefined && typeof accessClaims !== 'function') throw fail(`'accessClaims' must be a function of the request, received ${describeValue(accessClaims)}`)
  const invalid = optionValueProblem(raw)
  if (invalid !== undefined) throw fail(invalid)
  const plain = raw as PlainRouterOptions
  const identifierField = plain.identifierField ?? '_id'
  const shown = modelOut === undefined ? undefined : Object.keys(modelOut.properties)
  const [misnamed] = routerFieldProblems({ ...plain, fields: Object.keys(model.properties), shown, identifierField })
  if (misnamed !== undefined) throw fail(misnamed.message)
  return Object.freeze({
    model,
    modelOut,
    db,
    collectionName: plain.collectionName,
    tags: Object.freeze([...(plain.tags ?? [])]),
    name: plain.name,
    singular: plain.singular,
    identifierField,
    indexes: resolveIndexes(plain.indexes ?? [], identifierField),
    lookups: instances(raw, 'lookups', CRUDLookup),
    embeds: instances(raw, 'embeds', CRUDEmbed),
    populates: instances(raw, 'populates', CRUDPopulate),
    disabled,
    // Checked as booleans with the other plain options above.
    disabledExtras: new Set(EXTRA_ROUTE_NAMES.filter((name) => plain[`disable${name}`] === true)),
    dependencies: Object.freeze(Object.fromEntries(ROUTE_NAMES.map((name) => [name, deps[`dependencies${name}`]]))) as Record<RouteName, Dependency[]>,
    filterDependency: filterDependency as ResolvedRouterOptions['filterDependency'],
    filtersUnderScope: plain.filtersUnderScope ?? 'ignore',
    access: raw['access'] as ResolvedRouterOptions['access'],
    accessClaims: accessClaims as ResolvedRouterOptions['accessClaims'],
    clientIdsUnderScope: plain.clientIdsUnderScope ?? 'refuse',
    notFoundStatus: plain.notFoundStatus ?? 400,
    filterable: frozen(plain.filterable),
    sortable: frozen(plain.sortable),
    defaultLimit: plain.defaultLimit,
    maxLimit: plain.maxLimit,
    maxSkip: plain.maxSkip,
    maxTimeMS: plain.maxTimeMS,
    filterLimits: resolveFilterLimits(plain.filterLimits),
    maxStreams: plain.maxStreams,
    streamIdleTimeout: plain.streamIdleTimeout,
    maxGroups: plain.maxGroups ?? DEFAULT_MAX_GROUPS,
    maxBatchOperations: plain.maxBatchOperations ?? DEFAULT_MAX_BATCH_OPERATIONS,
    defaultSort: plain.defaultSort === undefined ? undefined : Object.freeze({ field: plain.defaultSort.field, direction: plain.defaultSort.direction ?? 1 }),
    cursorSecret: resolveCursorSecret(raw['cursorSecret']),
    etagKey: plain.etagKey,
  })
}

function refuseRenamedKeys(raw: Record<string, unknown>): void {
  for (const key of Object.keys(raw)) {
    const replacement = RENAMED[key] ?? (key.startsWith('disable_') || key.startsWith('dependencies_') ? camel(key) : undefined)
    if (replacement !== undefined) throw fail(`unknown option '${key}': use ${replacement}`)
  }
}

/** The options that are objects of the library or the driver, not JSON: checked by what they are. */
function checkHandles(raw: Record<string, unknown>): { model: MongoModelSchema, modelOut: MongoModelSchema | undefined, db: DriverDb } {
  const model = raw['model']
  if (!isModel(model)) throw fail(`'model' must be a model made by MongoModel(), received ${describeValue(model)}`)
  const modelOut = raw['modelOut']
  if (modelOut !== undefined && !isModelOut(modelOut)) {
    throw fail(`'modelOut' must be a model made by MongoModelOut(), received ${describeValue(modelOut)}`)
  }
  const db = raw['db'] as DriverDb | undefined
  if (typeof db !== 'object' || db === null || typeof db.collection !== 'function') {
    throw fail(`'db' must be a database handle (the driver's Db or openEmbedded()), received ${describeValue(db)}`)
  }
  return { model, modelOut: modelOut as MongoModelSchema | undefined, db }
}

function resolveCursorSecret(value: unknown): string | Buffer | undefined {
  if (value === undefined) return undefined
  const length = typeof value === 'string' ? value.length : Buffer.isBuffer(value) ? value.length : -1
  if (length < 32) throw fail(`'cursorSecret' must be a string or Buffer of at least 32 characters or bytes, received ${length < 0 ? describeValue(value) : `one of ${length}`}`)
  return value as string | Buffer
}

function instances<T>(raw: Record<string, unknown>, key: string, type: new (...args: never[]) => T): readonly T[] {
  const value = raw[key] ?? []
  if (!Array.isArray(value) || !value.every((v) => v instanceof type)) {
    throw fail(`'${key}' must be an array of ${type.name} instances, received ${describeValue(value)}`)
  }
  return Object.freeze([...value])
}

const frozen = (list: readonly string[] | undefined) => (list === undefined ? undefined : Object.freeze([...list]))

/** The defaults, with the keys the user set (a key set to undefined keeps its default). */
function resolveFilterLimits(value: PlainRouterOptions['filterLimits']): FilterLimits {
  if (value === undefined) return DEFAULT_FILTER_LIMITS
  const set = Object.entries(value).filter(([, limit]) => limit !== undefined)
  return Object.freeze({ ...DEFAULT_FILTER_LIMITS, ...Object.fromEntries(set) })
}

/** The declared indexes (checked already), then the identifier field's unique index when it is not `_id`. */
function resolveIndexes(declared: NonNullable<PlainRouterOptions['indexes']>, identifierField: string): readonly ResolvedIndex[] {
  const indexes = declared.map((index): ResolvedIndex => Object.freeze({ key: Object.freeze({ ...index.key }), unique: index.unique ?? false, name: index.name }))
  // The identifier field must be unique; its index keeps the name it has always had.
  if (identifierField !== '_id') indexes.push(Object.freeze({ key: Object.freeze({ [identifierField]: 1 as const }), unique: true, name: `${identifierField}_unique` }))
  return Object.freeze(indexes)
}
