// API documentation: the OpenAPI document at /openapi.json, Swagger UI at /docs and
// ReDoc at /redoc. All assets are served by the app itself, so the docs work offline.
// Route JSON schemas are the single source: @fastify/swagger collects every route
// registered after this call.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { openapiTransform } from './openapi-transform.js'
import { registerRedoc } from './register-redoc.js'

/** An OpenAPI security scheme (components.securitySchemes), e.g. `{ type: 'apiKey', in: 'header', name: 'x-api-key' }`. */
export type SecurityScheme =
  | { type: 'apiKey', in: 'header' | 'query' | 'cookie', name: string, description?: string }
  | { type: 'http', scheme: string, bearerFormat?: string, description?: string }
  | { type: 'oauth2', flows: Record<string, unknown>, description?: string }
  | { type: 'openIdConnect', openIdConnectUrl: string, description?: string }

/** What the OpenAPI document says about the API as a whole (the `info`, `servers`, `tags` and security objects). */
export interface OpenAPIDocsOptions {
  /** Where the API is served; default `[{ url: '/' }]`: the host serving the document. */
  servers?: Array<{ url: string, description?: string }>
  /** Schemes that `securedBy(name, dependency)` refers to; Swagger UI's Authorize button offers them. */
  securitySchemes?: Record<string, SecurityScheme>
  /**
   * What every operation requires unless it says otherwise; default `[]`: routes are public unless a
   * dependency declared with `securedBy` guards them. An app behind a global auth hook says so here.
   */
  security?: Array<Record<string, string[]>>
  license?: { name: string, url?: string, identifier?: string }
  contact?: { name?: string, url?: string, email?: string }
  /** Descriptions of the routers' tags, in the order the docs list them. */
  tags?: Array<{ name: string, description?: string }>
}

interface DocsOptions extends OpenAPIDocsOptions {
  title: string
  version: string
  description?: string
}

export const OPENAPI_PATH = '/openapi.json'
const SWAGGER_UI_PATH = '/docs'

export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      // 3.1: schemas are JSON Schema 2020-12, so TypeBox's `{ type: 'null' }` unions are valid.
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        ...(options.description === undefined ? {} : { description: options.description }),
        ...(options.license === undefined ? {} : { license: options.license }),
        ...(options.contact === undefined ? {} : { contact: options.contact }),
      },
      servers: options.servers ?? [{ url: '/' }],
      security: options.security ?? [],
      ...(options.tags === undefined ? {} : { tags: options.tags }),
      ...(options.securitySchemes === undefined ? {} : { components: { securitySchemes: options.securitySchemes } }),
    },
    transform: openapiTransform,
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
