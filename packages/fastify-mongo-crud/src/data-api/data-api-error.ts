import { NO_ROLE_APPLIES } from '../access/compile-access.js'
import { HTTPException, StoreError, type ValidationIssue } from '../errors.js'
import { StoreUnavailable } from '../store/store-unavailable.js'

/**
 * The `error_code`s the endpoint answers: App Services' own names (realm-core's ErrorCodes), so that a
 * client that branches on them keeps working (docs/data-api.md lists which status each comes with).
 */
export type DataApiErrorCode =
  | 'InvalidParameter'
  | 'MissingParameter'
  | 'InvalidSession'
  | 'NoMatchingRuleFound'
  | 'FunctionNotFound'
  | 'SchemaValidationFailedWrite'
  | 'MongoDBError'
  | 'ExecutionTimeLimitExceeded'
  | 'ReadSizeLimitExceeded'
  | 'BadRequest'
  | 'InternalServerError'

/** An error of the Data API endpoint: answered `{ "error": message, "error_code": code }` with its status. */
export class DataApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: DataApiErrorCode,
    message: string,
    /** Headers the answer carries (`Retry-After` of a database out of reach). */
    readonly headers: Readonly<Record<string, string>> = {}
  ) {
    super(message)
    this.name = 'DataApiError'
  }
}

/** A body, a namespace or a parameter the endpoint cannot use: 400 naming it. */
export const invalidParameter = (message: string) => new DataApiError(400, 'InvalidParameter', message)
/** A key an action needs that the body lacks: 400 naming it. */
export const missingParameter = (name: string, action: string) => new DataApiError(400, 'MissingParameter', `'${name}' is required by ${action}`)
/** No credentials at all: 400, word for word as MongoDB answered it. */
export const noCredentials = () => new DataApiError(400, 'InvalidParameter', 'no authentication methods were specified')
/** Credentials that name no caller (an unknown key, a token that does not verify): 401, word for word as MongoDB answered it. */
export const invalidSession = () => new DataApiError(401, 'InvalidSession', 'invalid session: error finding user for endpoint')
/** A caller no role (or guard) lets do this: 403. */
export const noRole = (message: string) => new DataApiError(403, 'NoMatchingRuleFound', message)
/** An action the endpoint does not have. */
export const unknownAction = (action: string, known: readonly string[]) =>
  new DataApiError(404, 'FunctionNotFound', `no action '${action}': the Data API's actions are ${known.join(', ')}`)
/** A result longer than the endpoint answers (an aggregate past the find limit). */
export const readTooLarge = (limit: number) =>
  new DataApiError(400, 'ReadSizeLimitExceeded', `the result holds more than ${limit} documents: add $limit, or narrow $match`)

/** What answering a failure of the library's own (a route's refusal, a store error) as the Data API would takes. */
const BY_CODE: Readonly<Record<string, readonly [number, DataApiErrorCode]>> = {
  FMC_ERR_VALIDATION: [422, 'SchemaValidationFailedWrite'],
  FMC_ERR_RESERVED_ID: [422, 'SchemaValidationFailedWrite'],
  FMC_ERR_TOO_LARGE: [422, 'SchemaValidationFailedWrite'],
  FMC_ERR_FILTER_INVALID: [400, 'InvalidParameter'],
  FMC_ERR_QUERY_INVALID: [400, 'InvalidParameter'],
  // A unique index or a taken `_id`: the write is refused by the database, as MongoDB's E11000.
  FMC_ERR_NOT_CREATED: [409, 'MongoDBError'],
  FMC_ERR_PATCH_CONFLICT: [409, 'MongoDBError'],
  FMC_ERR_PATCH_RETRIES: [409, 'MongoDBError'],
  // A disabled route is a write no role may make here.
  FMC_ERR_ROUTE_DISABLED: [403, 'NoMatchingRuleFound'],
  FMC_ERR_OUT_OF_SCOPE: [403, 'NoMatchingRuleFound'],
  FMC_ERR_ACCESS_REFUSED: [403, 'NoMatchingRuleFound'],
  FMC_ERR_CLAIM_REFUSED: [403, 'NoMatchingRuleFound'],
}

/**
 * Any error an action met, as the Data API answers it. The library's refusals keep their meaning
 * (a model's 422, a guard's 401 or 403), under App Services' codes; a database out of reach is 503
 * with `Retry-After`; anything unexpected is a 500 that tells nothing (the caller logs it).
 */
export function asDataApiError(error: unknown): DataApiError {
  if (error instanceof DataApiError) return error
  if (error instanceof HTTPException) return fromHttpException(error)
  if (error instanceof StoreUnavailable) return new DataApiError(503, 'InternalServerError', 'the database cannot be reached: retry in a moment', { 'retry-after': '5' })
  if (error instanceof StoreError) return fromStoreError(error)
  const fastify = error as { code?: unknown, statusCode?: unknown, message?: unknown }
  if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new DataApiError(413, 'BadRequest', 'the request body is larger than this endpoint takes')
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) return new DataApiError(fastify.statusCode, 'BadRequest', String(fastify.message))
  return new DataApiError(500, 'InternalServerError', 'internal server error')
}

function fromHttpException(error: HTTPException): DataApiError {
  // The endpoint named the caller before any router was asked: a policy that finds no claims for it (a
  // router's own accessClaims) refuses a caller with credentials, not one without.
  if (error.code === 'FMC_ERR_ACCESS_REFUSED' && error.statusCode === 401) return new DataApiError(403, 'NoMatchingRuleFound', NO_ROLE_APPLIES)
  const known = BY_CODE[error.code]
  const message = typeof error.detail === 'string' ? error.detail : issuesText(error.detail)
  if (known !== undefined) return new DataApiError(known[0], known[1], known[0] === 409 && error.code === 'FMC_ERR_NOT_CREATED' ? 'Duplicate key error: a document with this _id or unique value exists' : message)
  if (error.statusCode === 401) return invalidSession()
  if (error.statusCode === 403) return noRole(message)
  if (error.statusCode === 422 && Array.isArray(error.detail)) return new DataApiError(422, 'SchemaValidationFailedWrite', message)
  if (error.statusCode >= 500) return new DataApiError(error.statusCode, 'InternalServerError', message)
  return new DataApiError(400, 'InvalidParameter', message)
}

function fromStoreError(error: StoreError): DataApiError {
  switch (error.code) {
    case 'FMC_ERR_STORE_DUPLICATE':
      return new DataApiError(409, 'MongoDBError', 'Duplicate key error: a document with this _id or unique value exists')
    case 'FMC_ERR_STORE_TIMEOUT':
      return new DataApiError(503, 'ExecutionTimeLimitExceeded', 'the query exceeded its time limit (maxTimeMS)')
    case 'FMC_ERR_STORE_TOO_LARGE':
      return new DataApiError(422, 'SchemaValidationFailedWrite', 'the document would exceed the 16 MB document size limit')
    case 'FMC_ERR_STORE_SORT_MEMORY':
      return new DataApiError(400, 'MongoDBError', 'the sort needs more memory than the database allows without an index: add a limit, narrow the filter, or sort by an indexed field')
    case 'FMC_ERR_STORE_BUSY':
      return new DataApiError(503, 'InternalServerError', 'the database has no memory free for this query right now: retry in a moment', { 'retry-after': '1' })
    case 'FMC_ERR_STORE_OUT_OF_SPACE':
      return new DataApiError(507, 'MongoDBError', 'the database has no room to store the write (its disk is full), and did not store it')
    default:
      return new DataApiError(500, 'InternalServerError', 'internal server error')
  }
}

/** A validation detail as one line of text: each problem at its place (`document.email: Field required`). */
function issuesText(issues: readonly ValidationIssue[]): string {
  const placed = issues.map((issue) => {
    const path = issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc
    return `${path.length === 0 ? 'document' : `document.${path.join('.')}`}: ${issue.msg}`
  })
  return `the document does not fit the collection's model: ${placed.join('; ')}`
}
