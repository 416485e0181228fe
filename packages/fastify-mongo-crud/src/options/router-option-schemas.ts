import { type Static, Type } from 'typebox'

/**
 * The router options that are plain JSON values, declared once: their TypeScript types (`Static`, in
 * router-option-types.ts), their registration check (check-option-values.ts) and the router keys of the
 * API file's JSON Schema (api-file/api-file-schema.ts) all derive from these declarations. Options that
 * are not JSON (models, the database handle, functions, relation instances, a Buffer secret) are typed
 * and checked in code. `expects` says in words what a value must be, for the registration's messages;
 * it is not JSON Schema, and the API file's schema leaves it out.
 */

/** A plain identifier: operationIds, model and field names. */
export const IDENTIFIER_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$'
/** What MongoDB accepts as a collection name: not empty, no `$`, no NUL, not `system.`. */
export const COLLECTION_NAME_PATTERN = '^(?!system\\.)[^$\\u0000]+$'

const limit = (minimum: number, description: string) => Type.Optional(Type.Integer({ minimum, description }))
const fieldPaths = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, expects: 'a field path' }), { description, expects: 'an array of field paths' }))
const disable = (route: string) => Type.Optional(Type.Boolean({ description: `Leaves the ${route} route out.` }))

/** One index of `indexes`: stored field paths to 1 (ascending) or -1. */
export const RouterIndexSchema = Type.Object(
  {
    key: Type.Unsafe<Record<string, 1 | -1>>({ type: 'object', minProperties: 1, additionalProperties: { enum: [1, -1] } }),
    unique: Type.Optional(Type.Boolean()),
    name: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false }
)

export const DefaultSortSchema = Type.Object(
  { field: Type.String({ minLength: 1 }), direction: Type.Optional(Type.Enum([1, -1])) },
  { additionalProperties: false, expects: '{ field, direction? } with a sortable field name', description: "The list's order when a request sends no sort_by: a sortable field, direction 1 (default) or -1." }
)

export const FilterLimitsSchema = Type.Object(
  {
    maxDepth: Type.Optional(Type.Integer({ minimum: 1, description: 'Nesting depth of a filter.' })),
    maxNodes: Type.Optional(Type.Integer({ minimum: 1, description: 'Operators and values in a filter.' })),
    maxIn: Type.Optional(Type.Integer({ minimum: 1, description: 'Values of one $in, $nin or $all.' })),
    maxRegexLength: Type.Optional(Type.Integer({ minimum: 1, description: 'Characters of one $regex.' })),
    regexOptions: Type.Optional(Type.String({ pattern: '^[imsx]*$', description: 'The regex options a client may use.', expects: 'a string of the letters imsx' })),
  },
  { additionalProperties: false, description: 'Ceilings of client filters (defaults: depth 10, 500 nodes, 1000 values in a list, regex of 256 characters, options imsx).' }
)

export const RouterOptionSchemas = {
  collectionName: Type.String({ pattern: COLLECTION_NAME_PATTERN, description: 'The collection.', expects: 'a valid collection name' }),
  prefix: Type.Optional(Type.String({ description: "The routes' path prefix, e.g. /api/users." })),
  tags: Type.Optional(Type.Array(Type.String(), { description: "OpenAPI tags of the router's routes.", expects: 'an array of strings' })),
  name: Type.Optional(
    Type.String({
      pattern: IDENTIFIER_PATTERN,
      description: "The router's name: its operationIds (listUsers, getUser...), summaries and service. Default: the collection's name.",
      expects: 'an identifier (letters, digits, _)',
    })
  ),
  singular: Type.Optional(
    Type.String({ pattern: IDENTIFIER_PATTERN, description: "The singular of 'name' (getPerson). Default: the English singular of the last word of 'name'.", expects: 'an identifier (letters, digits, _)' })
  ),
  identifierField: Type.Optional(Type.String({ description: "'_id' (default) or a top-level field of the model, unique.", expects: "'_id' or a top-level field of the model" })),
  indexes: Type.Optional(
    Type.Array(RouterIndexSchema, {
      description: "Indexes created on the collection at registration ({ key, unique?, name? }); an identifierField gets its unique index without one.",
      expects: 'an array of { key, unique?, name? }',
    })
  ),
  filterable: fieldPaths("Fields clients may filter on (default: the output model's)."),
  sortable: fieldPaths("Fields clients may sort on (default: the output model's)."),
  defaultSort: Type.Optional(DefaultSortSchema),
  notFoundStatus: Type.Optional(Type.Enum([400, 404], { description: 'Status of "Document not found" answers: 400 (default, as the Python original answers) or 404.' })),
  filtersUnderScope: Type.Optional(Type.Enum(['ignore', 'and'], { description: "Client filters on the list under a filterDependency scope: 'ignore'd (default) or 'and'ed with the scope." })),
  clientIdsUnderScope: Type.Optional(
    Type.Enum(['refuse', 'allow'], {
      description: "Whether a create under a filterDependency scope may choose the document's id: 'refuse' (default), since an id taken in another scope would be told apart from a free one; or 'allow'.",
    })
  ),
  defaultLimit: limit(1, "'limit' applied when the client sends none."),
  maxLimit: limit(1, "Largest 'limit' a client may ask for."),
  maxSkip: limit(0, "Largest 'skip' a client may ask for."),
  maxTimeMS: limit(1, 'Server-side time limit of every query, in milliseconds.'),
  maxStreams: limit(1, 'Streamed lists served at once by a router (past it, 503; default 64).'),
  streamIdleTimeout: limit(1, 'Milliseconds a streamed list waits for a client that stopped reading (default 30000).'),
  maxGroups: limit(1, "Most groups one answer of <prefix>/_groups holds: its largest 'limit', and without a limit more groups are refused (422; default 1000)."),
  maxBatchOperations: limit(1, 'Most operations one request to <prefix>/_batch carries (past it, 422; default 100).'),
  filterLimits: Type.Optional(FilterLimitsSchema),
  etagKey: Type.Optional(
    Type.String({
      minLength: 16,
      // writeOnly: a secret, which registration's messages never show.
      writeOnly: true,
      description: 'Secret key of the ETags; the same on every instance of the app. Default: random per process.',
      expects: 'a secret of 16 characters or more',
    })
  ),
  disableGetAll: disable('list'),
  disableGetOne: disable('read'),
  disableCreateOne: disable('create'),
  disableReplaceOne: disable('replace (PUT)'),
  disableUpdateOne: disable('update (PATCH)'),
  disableDeleteOne: disable('delete'),
  disableBatch: disable('<prefix>/_batch'),
  disableGroups: disable('<prefix>/_groups'),
  disableEvents: disable('<prefix>/_events'),
}

/** The plain options as one object schema: what registration validates them against. */
export const PlainRouterOptionsSchema = Type.Object(RouterOptionSchemas)
export type PlainRouterOptions = Static<typeof PlainRouterOptionsSchema>
export type PlainRouterOptionKey = keyof typeof RouterOptionSchemas

/** The limits of a router's lists, which the API file groups under `limits`. */
export const LIMIT_KEYS = ['defaultLimit', 'maxLimit', 'maxSkip', 'maxTimeMS', 'maxStreams', 'streamIdleTimeout', 'maxGroups', 'maxBatchOperations'] as const satisfies readonly PlainRouterOptionKey[]
