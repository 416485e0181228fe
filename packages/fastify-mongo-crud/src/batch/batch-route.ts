import type { FastifyInstance, FastifySchemaCompiler, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { refusalsOf } from '../core/route-refusals.js'
import { routeSecurity } from '../core/route-security.js'
import { ROUTE_OF } from '../dispatch/dispatch.js'
import type { BatchKind } from './batch-kind.js'
import type { BatchBody } from './batch-schemas.js'
import { batchFailureSchema, batchRequestSchema, batchResponseSchema, batchStructure } from './batch-schemas.js'
import { runBatch } from './run-batch.js'

/** The path segment of a list's batch (`<prefix>/_batch`, docs/batch.md): a name no document id is given. */
export const BATCH_SEGMENT = '_batch'

/** What an atomic batch answers when an operation fails: the statuses its routes answer. */
const FAILURES: Record<number, string> = {
  403: 'An operation was refused by a guard, or would leave the scope',
  404: "An operation's route is disabled, or its document (or parent) was not found",
  409: "A JSON Patch's test failed, or its path is missing from the document",
  412: 'If-Match of an operation names another version',
  415: "An update's contentType is not a PATCH media type",
  422: 'The batch is empty or too large, or an operation is invalid or was not applied (or, atomic, the database has no transactions)',
}

/**
 * POST `<list>/_batch`: the operations of the list's routes, in order, in one request (docs/batch.md).
 * OpenAPI shows each operation typed by its route's body; the route itself checks the batch's shape
 * only (`batchStructure`), and each operation's body is checked as its own route checks it, so that an
 * invalid operation answers with its own status and index.
 */
function buildBatchRoute(kind: BatchKind, url: string, naming: { operationId: string, summary: string, tags: readonly string[] }, compile: FastifySchemaCompiler<TSchema>): RouteOptions {
  const structure = batchStructure(kind.maxOperations)
  const routes = Object.values(ROUTE_OF).filter((route) => !kind.disabled.has(route))
  const security = batchSecurity(routes.map((route) => routeSecurity([...kind.guards(route), kind.scope])))
  // An operation refused for want of a token (or a header) fails an atomic batch with its 401.
  const unauthenticated = refusalsOf(routes.flatMap((route) => kind.guards(route))).get(401)
  const failures = Object.fromEntries(
    Object.entries({ ...FAILURES, ...(unauthenticated === undefined ? {} : { 401: `An operation was refused: ${unauthenticated.join('; or: ')}` }) }).map(([status, description]) => [
      status,
      { ...batchFailureSchema, description },
    ])
  )
  return {
    method: 'POST',
    url,
    schema: {
      tags: [...naming.tags],
      operationId: naming.operationId,
      summary: naming.summary,
      description: 'Creates, replaces, updates and deletes documents in one request, each operation as its route would. Atomic (the default): all apply or none does.',
      ...(security === undefined ? {} : { security }),
      body: batchRequestSchema(kind.bodies, kind.maxOperations),
      response: { 200: { ...batchResponseSchema, description: 'One result per operation, in order' }, ...failures },
    },
    validatorCompiler: (route) => compile(route.httpPart === 'body' ? { ...route, schema: structure as TSchema } : route),
    handler: async (request, reply) => {
      const { status, payload } = await runBatch(kind, request, reply, request.body as BatchBody)
      // The results are JSON text already (run-batch.ts); a refusal is a value the route's schema serializes.
      if (typeof payload === 'string') reply.type('application/json; charset=utf-8')
      return reply.code(status).send(payload)
    },
  }
}

/**
 * Each operation of a batch needs what its own route needs, which OpenAPI cannot say per operation: the
 * batch lists each route's requirement as an alternative (`{}` for a route that needs none), never all of
 * them together, which would claim that a batch of creates needs the delete route's scheme.
 */
function batchSecurity(routes: ReadonlyArray<Array<Record<string, string[]>> | undefined>): Array<Record<string, string[]>> | undefined {
  if (routes.every((security) => security === undefined)) return undefined
  const alternatives = new Map<string, Record<string, string[]>>()
  for (const security of routes) {
    const requirement = security?.[0] ?? {}
    alternatives.set(JSON.stringify(requirement), requirement)
  }
  return [...alternatives.values()]
}

/** Registers the batch route of `kind`, unless it has no write route: then a batch could hold nothing. */
export function mountBatchRoute(fastify: FastifyInstance, kind: BatchKind, url: string, naming: { operationId: string, summary: string, tags: readonly string[] }, compile: FastifySchemaCompiler<TSchema>): void {
  if (Object.values(ROUTE_OF).every((route) => kind.disabled.has(route))) return
  fastify.route(buildBatchRoute(kind, url, naming, compile))
}
