import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HTTPException, invalidBody } from '../errors.js'
import { PATCH_MEDIA_TYPES } from '../patch/patch-media-types.js'

/**
 * The router's JSON body parser, and the only one its routes have: bodies are JSON documents, and any
 * other content type is 415 (docs/http-contract.md). Fastify's default `text/plain` parser, or a parser
 * the app added (a form body), would hand the validator a string or a form and make it a 422 or worse.
 * The router's plugin is encapsulated: the app's own routes keep their parsers.
 *
 * Fastify's default JSON parser answers every parse failure with the same sentence; ours says where
 * the JSON is broken. Prototype-poisoning keys survive `JSON.parse` only as plain own properties (it
 * never touches prototypes) and the body validator then refuses them.
 */
export function useJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
  // A PATCH takes a merge patch or a JSON Patch too (docs/patch.md): JSON, where its route's body names the type.
  fastify.addContentTypeParser([PATCH_MEDIA_TYPES.merge, PATCH_MEDIA_TYPES.jsonPatch], { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const content = (request.routeOptions.schema?.body as { content?: Record<string, unknown> } | undefined)?.content
    if (content?.[request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? ''] === undefined) done(new HTTPException(415, 'Unsupported Media Type', 'FMC_ERR_HTTP'), undefined)
    else parseJson(request, body, done)
  })
  // Any other type: a route that takes no body accepts an empty one (a client may label a bodiless
  // DELETE `text/plain`); everything else is 415, as Fastify answers a type it has no parser for.
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    if (body.length === 0 && request.routeOptions.schema?.body === undefined) done(null, undefined)
    else done(new HTTPException(415, 'Unsupported Media Type', 'FMC_ERR_HTTP'), undefined)
  })
}

/** A JSON body: parsed, or a 422 saying where it is broken. */
function parseJson(request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8')
  // A route that takes no body (GET, DELETE) answers its errors as `{ detail: "..." }`: a list of
  // validation issues would not fit its error schema. An empty body there is no body at all.
  const takesBody = request.routeOptions.schema?.body !== undefined
  if (text.trim() === '') {
    done(takesBody ? missingBody() : null, undefined)
    return
  }
  try {
    done(null, JSON.parse(text))
  } catch (error) {
    const message = `JSON decode error: ${(error as Error).message}`
    done(takesBody ? invalidBody([{ loc: ['body'], msg: message, type: 'json_invalid' }]) : new HTTPException(422, `body: ${message}`, 'FMC_ERR_VALIDATION'), undefined)
  }
}

/** A route that takes a body received none (an empty one): 422, as FastAPI answers a missing body. */
export const missingBody = () => invalidBody([{ loc: ['body'], msg: 'Field required', type: 'missing' }])
