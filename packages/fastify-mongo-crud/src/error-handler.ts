import type { ErrorObject } from 'ajv'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { HTTPException, StoreError, type ValidationIssue } from './errors.js'
import { queryIssueDetail } from './query/list-query.js'
import { toValidationIssues } from './schema/validation-issues.js'
import { StoreUnavailable } from './store/store-unavailable.js'

type HandledError = Omit<FastifyError, 'validation' | 'validationContext'> & {
  validation?: ErrorObject[]
  validationContext?: string
  /** Failing locations of the body left out of `validation` (validator.ts). */
  validationMore?: number
  detail?: unknown
  /** Headers a 4xx answer carries (a 401's `WWW-Authenticate`), as Fastify's own error handler sends them. */
  headers?: Record<string, string>
}

const QUERY_TIMED_OUT = 'The query exceeded its time limit (maxTimeMS)'
const OUT_OF_SPACE = 'The database has no room to store the write (its disk is full), and did not store it. Reads still work: send it again once space is freed'
const BUSY = 'The database has no memory free for this query right now: retry in a moment, or send a limit, narrower filters, or sort by an indexed field'
/** What a client refused by a busy database is told to wait before retrying, in seconds. */
const BUSY_RETRY_AFTER_S = '1'
const SORT_TOO_LARGE = 'The list is too large to sort without an index on its sort field (the database refused the memory it needs): send a limit, narrower filters, or sort by an indexed field'
const UNAVAILABLE = 'The database cannot be reached (it is down, restarting or out of reach): retry in a moment'
const WRITE_OUTCOME_UNKNOWN =
  'The database could not be reached while this write ran: whether it was stored is not known. Retry in a moment; with If-Match (or, for a create with its id, If-None-Match: *) a retry applies it at most once'
/**
 * What a client refused by a database out of reach is told to wait before retrying, in seconds. A
 * restart or a replica set's election takes seconds, and each request meanwhile already waited for
 * the driver's server selection (5 s where this library makes the client, cli/open-database.ts):
 * a shorter wait would only add requests that wait that long again.
 */
const UNAVAILABLE_RETRY_AFTER_S = '5'

/**
 * Every error leaves as `{ "detail": ... }`: documented failures with their status, bad input as 4xx
 * naming what is wrong, and anything unexpected as a logged 500 that reveals nothing internal.
 */
export function handleError(error: HandledError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, detail } = describeError(error)
  // Still logged below: a database out of reach is what the operator must hear of first.
  if (error instanceof StoreUnavailable) void reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_S)
  if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_BUSY') void reply.header('retry-after', BUSY_RETRY_AFTER_S)
  else if (status >= 500) request.log.error({ err: error }, 'request failed')
  else if (error.headers !== undefined) void reply.headers(error.headers)
  void reply.code(status).type('application/json; charset=utf-8').send({ detail })
}

export function describeError(error: HandledError): { status: number, detail: string | ValidationIssue[] } {
  if (error instanceof HTTPException) return { status: error.statusCode, detail: error.detail }
  // Past `maxTimeMS` the database gave up, not the client: retrying later may succeed.
  if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_TIMEOUT') return { status: 503, detail: QUERY_TIMED_OUT }
  // The same request fails the same way however often it is retried, and the client can change it so
  // that it succeeds (a limit keeps only the top of the sort): a 4xx, like the other limits a request
  // can exceed, with the query-parameter status of this router.
  if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_SORT_MEMORY') return { status: 422, detail: SORT_TOO_LARGE }
  // The same request succeeds once other sorts are done (the database was busy, not the request wrong): 503 with Retry-After.
  if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_BUSY') return { status: 503, detail: BUSY }
  // The server cannot store the representation (RFC 4918's 507): the request was fine, and succeeds again once there is room.
  if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_OUT_OF_SPACE') return { status: 507, detail: OUT_OF_SPACE }
  // The request was fine and succeeds once the database is back: 503, with Retry-After (handleError).
  if (error instanceof StoreUnavailable) return { status: 503, detail: error.writeOutcomeUnknown ? WRITE_OUTCOME_UNKNOWN : UNAVAILABLE }
  if (error.validation !== undefined) {
    const part = error.validationContext ?? 'body'
    if (part === 'querystring') {
      return { status: 422, detail: queryIssueDetail(error.validation[0]) }
    }
    return { status: 422, detail: toValidationIssues(part, error.validation, error.validationMore) }
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 422, detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, detail: error.message }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 422, detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] }
    // Raised by the router before any route runs; createApp hands them here through `frameworkErrors`.
    case 'FST_ERR_BAD_URL':
      return { status: 400, detail: 'Invalid URL: malformed percent-encoding' }
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, detail: 'A path parameter is longer than the limit (maxParamLength)' }
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500
  if (status >= 400 && status < 500) {
    const detail = typeof error.detail === 'string' ? error.detail : error.message
    return { status, detail }
  }
  return { status: 500, detail: 'Internal Server Error' }
}
