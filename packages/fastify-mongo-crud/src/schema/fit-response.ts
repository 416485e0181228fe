import type { FastifyBaseLogger, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { selectedFields, withheldFields } from '../query/parse-fields.js'
import { DROP, type Fit, type FitIssue } from './fit-document.js'

/** Where the documents a route answers are stored, to name them in warnings. */
export interface FitSource {
  readonly collection: string
  /** For embedded items: the array field of the parent, and the path parameter naming the parent. */
  readonly embed?: { readonly field: string, readonly parentParam: string }
}

/**
 * Fits one stored document to an output model, logging one warning per document and field; DROP
 * when none of it can be served. Lists call it on each document (core/serve-list.ts), the routes
 * answering one document through `withFittedResponses`: each answer is fitted in exactly one place.
 */
export type DocumentFitter = (doc: unknown, request: FastifyRequest) => unknown

/**
 * Compiled on first use, when every router of the app has registered (a populate may take its
 * output model from a router registered after its own).
 */
export function createDocumentFitter(compileFit: (schema: TSchema) => Fit, schema: object, source: FitSource): DocumentFitter {
  let fit: Fit | undefined
  const issues: FitIssue[] = []
  return (doc, request) => {
    fit ??= compileFit(schema as TSchema)
    const result = fit(doc, issues)
    if (issues.length > 0) unselected(issues, request)
    if (issues.length > 0) {
      const parentId = source.embed === undefined ? undefined : (request.params as Record<string, string>)[source.embed.parentParam]
      report(request.log, source, doc, issues, parentId)
      issues.length = 0
    }
    return result
  }
}

/** A field left out by `fields=`, or withheld from the caller's role, was not read: its absence is no misfit to report. */
function unselected(issues: FitIssue[], request: FastifyRequest): void {
  const selected = selectedFields(request)
  const withheld = withheldFields(request)
  if (selected === undefined && withheld === undefined) return
  for (let i = issues.length - 1; i >= 0; i--) {
    const field = issues[i]!.path.split('.')[0]!
    if ((selected !== undefined && !selected.has(field)) || withheld?.has(field) === true) issues.splice(i, 1)
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
 * The route with a `preSerialization` hook fitting every 2xx answer of one document to its response
 * schema. Lists (`type: array`) are left alone: the list pipeline fits their documents as it shows them.
 */
export function withFittedResponses(route: RouteOptions, compileFit: (schema: TSchema) => Fit, source: FitSource): RouteOptions {
  const responses = ((route.schema as { response?: Record<string, object> } | undefined)?.response ?? {}) as Record<string, object>
  const fitters = new Map<number, DocumentFitter>()
  for (const [status, schema] of Object.entries(responses)) {
    const code = Number(status)
    const type = (schema as { type?: unknown }).type
    if (code >= 200 && code < 300 && type !== 'null' && type !== 'array') fitters.set(code, createDocumentFitter(compileFit, schema, source))
  }
  if (fitters.size === 0) return route
  const hook = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const fitter = fitters.get(reply.statusCode)
    if (fitter === undefined || typeof payload !== 'object' || payload === null) return done(null, payload)
    const result = fitter(payload, request)
    done(null, result === DROP ? {} : result)
  }
  const existing = route.preSerialization
  const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
  return { ...route, preSerialization: [...hooks, hook] as NonNullable<RouteOptions['preSerialization']> }
}
