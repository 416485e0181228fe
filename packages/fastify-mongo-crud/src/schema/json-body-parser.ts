import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalidBody } from '../errors.js'

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
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.trim() === '') {
      done(invalidBody([{ loc: ['body'], msg: 'Field required', type: 'missing' }]), undefined)
      return
    }
    try {
      done(null, JSON.parse(text))
    } catch (error) {
      done(invalidBody([{ loc: ['body'], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' }]), undefined)
    }
  })
}
