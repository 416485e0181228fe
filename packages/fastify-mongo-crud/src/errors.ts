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
  | 'FMC_ERR_FILTER_INVALID'
  | 'FMC_ERR_TOO_LARGE'
  | 'FMC_ERR_DEPENDENCY'
  | 'FMC_ERR_OUT_OF_SCOPE'
  | 'FMC_ERR_HTTP'
  | 'FMC_ERR_CURSOR_INVALID'
  | 'FMC_ERR_PRECONDITION_FAILED'

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
export const invalidFilter = (detail: string) => new HTTPException(422, detail, 'FMC_ERR_FILTER_INVALID')
export const invalidBody = (issues: ValidationIssue[]) => new HTTPException(422, issues, 'FMC_ERR_VALIDATION')
export const outOfScope = () =>
  new HTTPException(403, "Write refused: the values sent would put the document outside the documents the caller may access", 'FMC_ERR_OUT_OF_SCOPE')
export const tooLarge = () =>
  new HTTPException(422, 'Document would exceed the 16 MB document size limit', 'FMC_ERR_TOO_LARGE')

/** `If-Match` named another version of the document, or `If-None-Match: *` on a create met an existing one. */
export const preconditionFailed = (detail: string) => new HTTPException(412, detail, 'FMC_ERR_PRECONDITION_FAILED')

export type StoreErrorCode = 'FMC_ERR_STORE_DUPLICATE' | 'FMC_ERR_STORE_TOO_LARGE' | 'FMC_ERR_STORE_TIMEOUT' | 'FMC_ERR_STORE_SORT_MEMORY'

/**
 * A storage failure the routes answer on purpose (duplicate key, oversized document, time limit,
 * a sort without an index past the database's memory limit).
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

/** A page cursor that was altered, or replayed with another filter, sort, scope or list (or combined with skip). */
export const invalidCursor = (detail: string) => new HTTPException(400, detail, 'FMC_ERR_CURSOR_INVALID')
