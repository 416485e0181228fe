import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalidBody } from '../errors.js'

/**
 * The router's JSON body parser. Fastify's default answers every parse failure with the same
 * sentence; ours says where the JSON is broken. Prototype-poisoning keys survive `JSON.parse` only
 * as plain own properties (it never touches prototypes) and the body validator then refuses them.
 */
export function useJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('application/json')
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
