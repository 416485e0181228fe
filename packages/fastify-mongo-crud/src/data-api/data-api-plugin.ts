import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_NAMES, type ActionInput, type ActionName, type ActionResult } from './action-input.js'
import { aggregateDocuments } from './aggregate-documents.js'
import { callerAuthenticator } from './authenticate-caller.js'
import { refuseUnknownKeys } from './body-keys.js'
import { asDataApiError, unknownAction } from './data-api-error.js'
import { type DataAPIOptions, resolveDataApiOptions } from './data-api-options.js'
import { actionSchema } from './data-api-schemas.js'
import { dataSourcesOf } from './data-sources.js'
import { deleteDocuments } from './delete-documents.js'
import { parseEjsonBody } from './ejson-request.js'
import { responseFormat } from './ejson-response.js'
import { findDocuments } from './find-documents.js'
import { insertDocuments } from './insert-documents.js'
import { replaceDocument } from './replace-document.js'
import { bodyObject, type ServedCollections, servedCollections } from './served-collections.js'
import { updateDocuments } from './update-documents.js'

const ACTIONS: Readonly<Record<ActionName, (input: ActionInput) => Promise<ActionResult>>> = {
  findOne: findDocuments,
  find: findDocuments,
  insertOne: insertDocuments,
  insertMany: insertDocuments,
  updateOne: updateDocuments,
  updateMany: updateDocuments,
  replaceOne: replaceDocument,
  deleteOne: deleteDocuments,
  deleteMany: deleteDocuments,
  aggregate: aggregateDocuments,
}

/**
 * The Data API endpoint (docs/data-api.md): `POST <prefix>/action/<findOne|find|insertOne|...>`, the
 * requests and answers of MongoDB's retired Atlas Data API, over the collections the app's routers serve,
 * each under its router's model, guards and policy. Register it beside the routers (`app.register(DataAPI,
 * { keys })`); it serves them once the app is ready. Encapsulated: its body parser (Extended JSON, whatever
 * the `Content-Type`, as the Data API read it), its error format and its 404 stay on its own routes.
 */
export async function DataAPI(fastify: FastifyInstance, raw: DataAPIOptions): Promise<void> {
  const options = resolveDataApiOptions(raw, fastify.prefix)
  const authenticate = callerAuthenticator(options, raw.onCaller)
  let collections: ServedCollections | undefined
  // Routers registered after this plugin are served too: the collections are known once the app is ready.
  fastify.addHook('onReady', async () => {
    collections = servedCollections(dataSourcesOf(fastify), options)
  })
  const known = dataSourcesOf(fastify).map((source) => source.context.options.collectionName)
  await fastify.register(
    async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', { parseAs: 'string', ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }) }, (_request, text, done) => {
        try {
          done(null, parseEjsonBody(text as string))
        } catch (error) {
          done(error as Error)
        }
      })
      scope.setErrorHandler(answerError)
      scope.setNotFoundHandler((request, reply) => answerError(unknownAction(request.url.split('?')[0]!.split('/').pop() ?? '', ACTION_NAMES), request, reply))
      scope.addHook('onRequest', async (request) => authenticate(request))
      for (const action of ACTION_NAMES) {
        scope.route({
          method: 'POST',
          url: `/action/${action}`,
          schema: actionSchema(action, known, { dataSource: options.dataSource, database: options.database }),
          // The schemas document; the actions read and check the body (Extended JSON) and answer in the Data API's format.
          validatorCompiler: () => () => true,
          handler: (request, reply) => runAction(action, request, reply, collections!),
        })
      }
    },
    { prefix: options.prefix }
  )
}

async function runAction(action: ActionName, request: FastifyRequest, reply: FastifyReply, collections: ServedCollections): Promise<FastifyReply> {
  const body = bodyObject(request.body)
  refuseUnknownKeys(body, action)
  const served = collections.resolve(body, action)
  const format = responseFormat(request.headers.accept)
  const result = await ACTIONS[action]({ action, served, body, caller: { request, reply }, format, collections })
  return reply
    .code(result.status)
    .type(format === 'ejson' ? 'application/ejson; charset=utf-8' : 'application/json; charset=utf-8')
    .send(JSON.stringify(result.body))
}

/** Every failure of the endpoint as the Data API answered it: `{ "error", "error_code" }` with its status; an unexpected one logged. */
function answerError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const answer = asDataApiError(error)
  if (answer.statusCode >= 500 && answer.errorCode === 'InternalServerError' && answer.headers['retry-after'] === undefined) request.log.error({ err: error }, 'Data API request failed')
  void reply
    .code(answer.statusCode)
    .headers(answer.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: answer.message, error_code: answer.errorCode }))
}
