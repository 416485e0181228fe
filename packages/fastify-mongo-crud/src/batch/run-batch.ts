import type { FastifyReply, FastifyRequest } from 'fastify'
import { etagOf } from '../core/etag.js'
import type { Caller } from '../core/router-context.js'
import { BATCH_STEPS, dispatch, type Outcome } from '../dispatch/dispatch.js'
import { describeError } from '../error-handler.js'
import { batchNeedsTransactions } from '../errors.js'
import { shownJson } from '../resources/shown-document.js'
import { inTransaction, TransactionsUnavailable } from '../store/session-scope.js'
import { StoreUnavailable } from '../store/store-unavailable.js'
import type { BatchKind } from './batch-kind.js'
import type { BatchBody } from './batch-schemas.js'

/** One entry of `results`; `body` is the document's JSON text, written into the answer as it is. */
interface BatchResult {
  status: number
  body?: string
  etag?: string
  detail?: unknown
}

/** The result of each operation after one that found the database out of reach (a batch that is not atomic). */
const NOT_RUN: BatchResult = { status: 503, detail: 'Not run: an earlier operation of this batch found the database out of reach' }

/** An operation of an atomic batch that failed: the whole batch answers its status, with its index. */
class OperationFailed extends Error {
  constructor(readonly index: number, override readonly cause: unknown) {
    super('a batch operation failed')
  }
}

/**
 * Runs a batch (docs/batch.md). Atomic (the default): every operation in one transaction of the
 * database; the first that fails ends it, nothing of the batch is stored, and the answer is that
 * operation's status with `{ detail, index }`. Not atomic: each operation on its own, every result
 * listed, failures included. Documents are shown (populated, fitted) once the batch is done.
 */
export async function runBatch(kind: BatchKind, request: FastifyRequest, reply: FastifyReply, body: BatchBody): Promise<{ status: number, payload: unknown }> {
  const caller = { request, reply }
  if (body.atomic === false) {
    const results: BatchResult[] = []
    for (const [index, operation] of body.operations.entries()) {
      try {
        results.push(await resultOf(kind, await dispatch(kind, operation, caller, BATCH_STEPS), caller))
      } catch (error) {
        if (error instanceof StoreUnavailable) {
          // Each operation after it would wait as long for the same answer. Met first, nothing was
          // done: the batch is answered as a route is (503, Retry-After).
          if (index === 0) throw error
          results.push(failureOf(error, request), ...body.operations.slice(index + 1).map(() => NOT_RUN))
          break
        }
        results.push(failureOf(error, request))
      }
    }
    return { status: 200, payload: resultsJson(results) }
  }
  let done: Outcome[]
  try {
    done = await inTransaction(kind.db, async () => {
      // Afresh on each run: the driver runs the function again after a transient conflict.
      const all: Outcome[] = []
      for (const [index, operation] of body.operations.entries()) {
        try {
          all.push(await dispatch(kind, operation, caller, BATCH_STEPS))
        } catch (error) {
          // A transient conflict (MongoDB's write conflict) propagates as it is: withTransaction retries it.
          if ((error as { hasErrorLabel?: (label: string) => boolean }).hasErrorLabel?.('TransientTransactionError')) throw error
          throw new OperationFailed(index, error)
        }
      }
      return all
    })
  } catch (error) {
    if (error instanceof TransactionsUnavailable) throw batchNeedsTransactions(error.message)
    if (!(error instanceof OperationFailed)) throw error
    // An uncommitted transaction stores nothing, however far its writes got before the database went out of reach.
    if (error.cause instanceof StoreUnavailable) throw new StoreUnavailable(false, { cause: error.cause.cause })
    const { status, detail } = describeError(error.cause as Parameters<typeof describeError>[0])
    if (status >= 500) throw error.cause
    return { status, payload: { detail, index: error.index } }
  }
  return { status: 200, payload: resultsJson(await Promise.all(done.map((outcome) => resultOf(kind, outcome, caller)))) }
}

async function resultOf(kind: BatchKind, { status, doc }: Outcome, caller: Caller): Promise<BatchResult> {
  if (doc === undefined) return { status }
  const body = await shownJson(kind.resource, doc, caller)
  return { status, body: body ?? '{}', etag: etagOf(doc, kind.resource.tagKey(caller)) }
}

/**
 * The answer `{ results }` as JSON text: each document as its serializer wrote it (once: the batch
 * writes it into its answer, it does not parse it to serialize it again), the rest by JSON.stringify.
 */
function resultsJson(results: readonly BatchResult[]): string {
  const entries = results.map(({ status, body, etag, detail }) => {
    const parts = [`"status":${status}`]
    if (body !== undefined) parts.push(`"body":${body}`)
    if (etag !== undefined) parts.push(`"etag":${JSON.stringify(etag)}`)
    if (detail !== undefined) parts.push(`"detail":${JSON.stringify(detail)}`)
    return `{${parts.join(',')}}`
  })
  return `{"results":[${entries.join(',')}]}`
}

/** A failed operation of a batch that is not atomic, answered as its route would answer it. */
function failureOf(error: unknown, request: FastifyRequest): BatchResult {
  const { status, detail } = describeError(error as Parameters<typeof describeError>[0])
  if (status >= 500) request.log.error({ err: error }, 'batch operation failed')
  return { status, detail }
}
