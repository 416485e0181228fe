import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { createApp } from '../app.js'
import type { ApiFile } from './api-file.js'
import { toOpenApiOptions } from './to-openapi-options.js'

/** The app a file's routers register on: `createApp` with the file's title, version, docs and body limit, then `fastify`. */
export function createFileApp(api: ApiFile, fastify: FastifyServerOptions | undefined): Promise<FastifyInstance> {
  const bodyLimit = api.limits?.bodyLimit
  return createApp({
    title: api.title ?? 'API',
    version: api.version ?? '1.0.0',
    ...(api.description === undefined ? {} : { description: api.description }),
    openapi: toOpenApiOptions(api),
    fastify: { ...(bodyLimit === undefined ? {} : { bodyLimit }), ...fastify },
  })
}
