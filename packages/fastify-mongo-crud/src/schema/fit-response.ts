import type { FastifyBaseLogger, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { DROP, type Fit, type FitIssue } from './fit-document.js'

/** Where the documents a route answers are stored, to name them in warnings. */
export interface FitSource {
  readonly collection: string
  /** For embedded items: the array field of the parent, and the path parameter naming the parent. */
  readonly embed?: { readonly field: string, readonly parentParam: string }
}

/** Fits one answer (a document or a list of them), logging one warning per document and field. */
export type ResponseFitter = (payload: unknown, log: FastifyBaseLogger, parentId?: string) => unknown

/**
 * A fitter for the answers of one response schema: a list (`type: array`) fits each item as its own
 * document, anything else is one document. Compiled on first use, when every router of the app has
 * registered (a populate may take its output model from a router registered after its own).
 */
export function createResponseFitter(compileFit: (schema: TSchema) => Fit, schema: object, source: FitSource): ResponseFitter {
  const list = (schema as { type?: unknown }).type === 'array'
  let fit: Fit | undefined
  const fitOf = () => {
    fit ??= compileFit((list ? (schema as { items: TSchema }).items : schema) as TSchema)
    return fit
  }
  const issues: FitIssue[] = []
  const one = (doc: unknown, log: FastifyBaseLogger, parentId: string | undefined) => {
    const result = fitOf()(doc, issues)
    if (issues.length > 0) {
      report(log, source, doc, issues, parentId)
      issues.length = 0
    }
    return result
  }
  return (payload, log, parentId) => {
    if (!list) {
      const result = one(payload, log, parentId)
      return result === DROP ? {} : result
    }
    if (!Array.isArray(payload)) return payload
    let out: unknown[] | undefined
    for (let i = 0; i < payload.length; i++) {
      const doc = payload[i]
      const result = one(doc, log, parentId)
      if (result === doc && out === undefined) continue
      out ??= payload.slice(0, i)
      if (result !== DROP) out.push(result)
    }
    return out ?? payload
  }
}

function report(log: FastifyBaseLogger, source: FitSource, doc: unknown, issues: readonly FitIssue[], parentId: string | undefined): void {
  const ownId = typeof doc === 'object' && doc !== null ? (doc as { id?: unknown }).id : undefined
  for (const issue of issues) {
    const field = issue.path === '' ? '(the document itself)' : issue.path
    if (source.embed === undefined) {
      const id = ownId === undefined ? '(none)' : String(ownId)
      log.warn(
        { collection: source.collection, _id: id, field },
        `Stored document does not fit the output model: collection "${source.collection}", _id ${id}, field "${field}": ${issue.reason}; served without it`
      )
    } else {
      const item = ownId === undefined ? '(an item without _id)' : `item ${String(ownId)}`
      const path = `${source.embed.field}.${field}`
      log.warn(
        { collection: source.collection, _id: parentId, field: path, item: ownId },
        `Stored embedded item does not fit the output model: collection "${source.collection}", _id ${parentId}, field "${path}" of ${item}: ${issue.reason}; served without it`
      )
    }
  }
}

/**
 * The route with a `preSerialization` hook fitting every 2xx answer that has a response schema to it.
 * Streamed lists skip the hook (their items are fitted one by one where they are serialized).
 */
export function withFittedResponses(route: RouteOptions, compileFit: (schema: TSchema) => Fit, source: FitSource): RouteOptions {
  const responses = ((route.schema as { response?: Record<string, object> } | undefined)?.response ?? {}) as Record<string, object>
  const fitters = new Map<number, ResponseFitter>()
  for (const [status, schema] of Object.entries(responses)) {
    const code = Number(status)
    if (code >= 200 && code < 300 && (schema as { type?: unknown }).type !== 'null') fitters.set(code, createResponseFitter(compileFit, schema, source))
  }
  if (fitters.size === 0) return route
  const hook = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const fitter = fitters.get(reply.statusCode)
    if (fitter === undefined || typeof payload !== 'object' || payload === null) return done(null, payload)
    const parentId = source.embed === undefined ? undefined : (request.params as Record<string, string>)[source.embed.parentParam]
    done(null, fitter(payload, request.log, parentId))
  }
  const existing = route.preSerialization
  const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
  return { ...route, preSerialization: [...hooks, hook] as NonNullable<RouteOptions['preSerialization']> }
}

/** Fits documents as they stream by (streamed lists, whose items never reach `preSerialization`). */
export async function* fitEach<T>(docs: AsyncIterable<T>, fitter: ResponseFitter, log: FastifyBaseLogger): AsyncGenerator<T> {
  for await (const doc of docs) yield fitter(doc, log) as T
}
