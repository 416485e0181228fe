/**
 * Every error this library raises, in one catalog. Codes are public API: users match on them,
 * so they are never renamed or reused.
 *
 * Two families:
 * - setup errors (`SetupError`), thrown while a router registers, naming the option and the value received;
 * - request errors (`HTTPException`), answered as `{ "detail": ... }` with their status.
 */

export type SetupErrorCode =
  | 'FMC_ERR_OPTIONS_INVALID'
  | 'FMC_ERR_MODEL_INVALID'
  | 'FMC_ERR_POPULATE_INVALID'
  | 'FMC_ERR_LOOKUP_INVALID'
  | 'FMC_ERR_EMBED_INVALID'

export class SetupError extends Error {
  readonly code: SetupErrorCode
  constructor(code: SetupErrorCode, message: string) {
    super(message)
    this.name = 'SetupError'
    this.code = code
  }
}

/** One item of a FastAPI-shaped validation `detail` array. */
export interface ValidationIssue {
  loc: Array<string | number>
  msg: string
  type: string
}

export type RequestErrorCode =
  | 'FMC_ERR_NOT_FOUND'
  | 'FMC_ERR_NOT_CREATED'
  | 'FMC_ERR_NOT_REPLACED'
  | 'FMC_ERR_NOT_UPDATED'
  | 'FMC_ERR_NOT_DELETED'
  | 'FMC_ERR_VALIDATION'
  | 'FMC_ERR_QUERY_INVALID'
  | 'FMC_ERR_QUERY_PARAMETER'
  | 'FMC_ERR_FILTER_INVALID'
  | 'FMC_ERR_TOO_LARGE'
  | 'FMC_ERR_DEPENDENCY'
  | 'FMC_ERR_OUT_OF_SCOPE'
  | 'FMC_ERR_HTTP'
  | 'FMC_ERR_CURSOR_INVALID'
  | 'FMC_ERR_PRECONDITION_FAILED'
  | 'FMC_ERR_UNAUTHENTICATED'
  | 'FMC_ERR_CLAIM_REFUSED'
  | 'FMC_ERR_RATE_LIMITED'
  | 'FMC_ERR_TOO_MANY_GROUPS'
  | 'FMC_ERR_INEXACT_SUM'
  | 'FMC_ERR_PATCH_CONFLICT'
  | 'FMC_ERR_PATCH_RETRIES'
  | 'FMC_ERR_UNSUPPORTED_MEDIA_TYPE'
  | 'FMC_ERR_RESERVED_ID'
  | 'FMC_ERR_BATCH_NO_TRANSACTIONS'
  | 'FMC_ERR_ROUTE_DISABLED'
  | 'FMC_ERR_EVENTS_GONE'
  | 'FMC_ERR_EVENTS_RESUME'
  | 'FMC_ERR_EVENTS_UNSUPPORTED'
  | 'FMC_ERR_ACCESS_REFUSED'

/**
 * An HTTP error with a status and a `detail`. Dependencies throw it to refuse a request
 * (`throw new HTTPException(403, 'Admin required')`); the routes throw it for every documented failure.
 */
export class HTTPException extends Error {
  readonly statusCode: number
  readonly detail: string | ValidationIssue[]
  readonly code: RequestErrorCode | (string & {})

  constructor(statusCode: number, detail: string | ValidationIssue[], code: RequestErrorCode | (string & {}) = 'FMC_ERR_HTTP') {
    super(typeof detail === 'string' ? detail : 'Validation failed')
    this.name = 'HTTPException'
    this.statusCode = statusCode
    this.detail = detail
    this.code = code
  }
}

export const notFound = (status: number) => new HTTPException(status, 'Document not found', 'FMC_ERR_NOT_FOUND')
export const notCreated = () => new HTTPException(422, 'Document not created', 'FMC_ERR_NOT_CREATED')
export const notReplaced = () => new HTTPException(422, 'Document not replaced', 'FMC_ERR_NOT_REPLACED')
export const notUpdated = () => new HTTPException(422, 'Document not updated', 'FMC_ERR_NOT_UPDATED')
export const notDeleted = () => new HTTPException(422, 'Document not deleted', 'FMC_ERR_NOT_DELETED')
export const invalidQuery = (detail: string) => new HTTPException(422, detail, 'FMC_ERR_QUERY_INVALID')
/** A query parameter the lists do not read that names a field, or another API's paging (query/guessed-parameters.ts). */
export const guessedParameter = (detail: string) => new HTTPException(400, detail, 'FMC_ERR_QUERY_PARAMETER')
export const invalidFilter = (detail: string) => new HTTPException(422, detail, 'FMC_ERR_FILTER_INVALID')
export const invalidBody = (issues: ValidationIssue[]) => new HTTPException(422, issues, 'FMC_ERR_VALIDATION')
export const outOfScope = () =>
  new HTTPException(403, "Write refused: the values sent would put the document outside the documents the caller may access", 'FMC_ERR_OUT_OF_SCOPE')
export const tooLarge = () =>
  new HTTPException(422, 'Document would exceed the 16 MB document size limit', 'FMC_ERR_TOO_LARGE')

/** `If-Match` named another version of the document, or `If-None-Match: *` on a create met an existing one. */
export const preconditionFailed = (detail: string) => new HTTPException(412, detail, 'FMC_ERR_PRECONDITION_FAILED')

export type StoreErrorCode =
  | 'FMC_ERR_STORE_DUPLICATE'
  | 'FMC_ERR_STORE_TOO_LARGE'
  | 'FMC_ERR_STORE_TIMEOUT'
  | 'FMC_ERR_STORE_SORT_MEMORY'
  | 'FMC_ERR_STORE_BUSY'
  | 'FMC_ERR_STORE_OUT_OF_SPACE'
  /** A change feed's resume point the database no longer keeps, or never issued; a database without change streams (routes/serve-events.ts). */
  | 'FMC_ERR_STORE_HISTORY_LOST'
  | 'FMC_ERR_STORE_BAD_RESUME_TOKEN'
  | 'FMC_ERR_STORE_NO_CHANGE_STREAMS'
  /** The database cannot be reached: down, restarting, out of reach, or its client or engine closed (store/store-unavailable.ts). */
  | 'FMC_ERR_STORE_UNAVAILABLE'

/**
 * A storage failure the routes answer on purpose (duplicate key, oversized document, time limit,
 * a sort without an index past the database's memory limit, a write the database has no room for).
 * The store raises it from the engine's own error, kept as `cause`; anything else stays a 500.
 */
export class StoreError extends Error {
  readonly code: StoreErrorCode
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreError'
    this.code = code
  }
}

/** A grouping with more groups than the router's `maxGroups`, asked without a `limit` (docs/groups.md). */
export const tooManyGroups = (maxGroups: number) =>
  new HTTPException(422, `More than ${maxGroups} groups (maxGroups): narrow the filters, group by fewer fields, or page through them with skip and limit`, 'FMC_ERR_TOO_MANY_GROUPS')
/** A sum of integers past 2^53, which a JSON number cannot hold exactly (docs/groups.md). */
export const inexactSum = (metric: string) =>
  new HTTPException(422, `${metric} would exceed ${Number.MAX_SAFE_INTEGER} and lose precision: narrow the filters or group by more fields`, 'FMC_ERR_INEXACT_SUM')

/** A page cursor that was altered, or replayed with another filter, sort, scope or list (or combined with skip). */
export const invalidCursor = (detail: string) => new HTTPException(400, detail, 'FMC_ERR_CURSOR_INVALID')

/** A PATCH (or a batch's update) in a media type the router does not take (docs/patch.md). */
export const unsupportedMediaType = (type: string) =>
  new HTTPException(415, `Unsupported Media Type ${JSON.stringify(type)}: a PATCH takes application/json, application/merge-patch+json or application/json-patch+json`, 'FMC_ERR_UNSUPPORTED_MEDIA_TYPE')
/** A merge patch or JSON Patch kept meeting concurrent writes of the document (docs/patch.md). */
export const patchRetriesExhausted = () =>
  new HTTPException(409, 'The document kept changing while the patch was applied: send it again', 'FMC_ERR_PATCH_RETRIES')
/** An identifier value a path segment of the router's own takes (`_batch`, `_events`, `_groups`). */
export const reservedId = (field: string, value: string) =>
  new HTTPException(422, [{ loc: ['body', field], msg: `${JSON.stringify(value)} is reserved: the router's own routes use it as a path segment (_batch, _events, _groups)`, type: 'reserved_value' }], 'FMC_ERR_RESERVED_ID')
/** An atomic batch on a database without transactions (a standalone MongoDB) (docs/batch.md). */
export const batchNeedsTransactions = (why: string) =>
  new HTTPException(422, `An atomic batch needs transactions, and ${why}: use a replica set (a single-node one will do), or send "atomic": false`, 'FMC_ERR_BATCH_NO_TRANSACTIONS')
/** A batch operation whose route the router leaves out (`disable*`), answered as the route is: not found. */
export const routeDisabled = (op: string) => new HTTPException(404, `This router has no ${op} route (it is disabled)`, 'FMC_ERR_ROUTE_DISABLED')

/** A `Last-Event-ID` older than the changes the database keeps (docs/events.md). */
export const eventsGone = () =>
  new HTTPException(410, 'The changes after this Last-Event-ID are no longer kept: reload the list, then subscribe again without Last-Event-ID', 'FMC_ERR_EVENTS_GONE')
/** A `Last-Event-ID` that is no event id of this stream. */
export const badLastEventId = (detail: string) => new HTTPException(400, detail, 'FMC_ERR_EVENTS_RESUME')
/** `_events` on a database without change streams (a standalone MongoDB). */
export const eventsUnsupported = () =>
  new HTTPException(501, 'This database has no change streams: MongoDB needs a replica set (a single-node one will do)', 'FMC_ERR_EVENTS_UNSUPPORTED')

/** No role of the router's `access` policy holds for the caller (401 when it sent no credentials), or its role may not do this (docs/security.md, Access policy). */
export const accessRefused = (status: 401 | 403, detail: string) => new HTTPException(status, detail, 'FMC_ERR_ACCESS_REFUSED')
