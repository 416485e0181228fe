import type { FastifyReply, FastifyRequest } from 'fastify'

/** The `Location` header of a 201, for OpenAPI. */
export const locationHeader = {
  Location: { type: 'string', description: 'URL of the created resource (the collection URL of the request, then its id)' },
} as const

/**
 * Sets `Location` on a 201 to the created resource: the request's own path (the list it was posted to,
 * without its query) followed by the new id, a reference relative to the request as RFC 9110 allows.
 */
export function setLocation(request: FastifyRequest, reply: FastifyReply, id: unknown): FastifyReply {
  const path = request.url.split('?')[0]!.replace(/\/+$/, '')
  return reply.header('location', `${path}/${encodeURIComponent(String(id))}`)
}
