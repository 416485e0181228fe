// API documentation: the OpenAPI document at /openapi.json, Swagger UI at /docs and
// ReDoc at /redoc. All assets are served by the app itself, so the docs work offline.
// Route JSON schemas are the single source: @fastify/swagger collects every route
// registered after this call.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { registerRedoc } from './register-redoc.js'

export interface DocsOptions {
  title: string
  version: string
  description?: string
}

export const OPENAPI_PATH = '/openapi.json'
export const SWAGGER_UI_PATH = '/docs'

export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      // 3.1: schemas are JSON Schema 2020-12, so TypeBox's `{ type: 'null' }` unions are valid.
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        ...(options.description === undefined ? {} : { description: options.description }),
      },
    },
    // Shared schemas (app.addSchema) become components named after their $id, i.e. the model name.
    refResolver: {
      buildLocalReference(json, _baseUri, _fragment, index) {
        return typeof json['$id'] === 'string' ? json['$id'] : `def-${index}`
      },
    },
  })

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger())

  await app.register(swaggerUi, {
    routePrefix: SWAGGER_UI_PATH,
    uiConfig: { deepLinking: true },
    theme: { title: options.title },
  })

  await registerRedoc(app, { title: options.title, specUrl: OPENAPI_PATH })
}
