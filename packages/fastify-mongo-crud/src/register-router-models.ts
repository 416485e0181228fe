import type { FastifyInstance } from 'fastify'
import { appRegistry } from './app-registry.js'
import { SetupError, type SetupErrorCode } from './errors.js'
import type { MongoModelSchema } from './models.js'
import type { ResolvedRouterOptions } from './options.js'
import { checkModelOut } from './schema/check-model-out.js'
import { nestedModels } from './schema/nested-models.js'

/**
 * Registration checks that need the models together or the other routers of the app: `modelOut`
 * against `model`, and model names (one name, one model, in the whole app: names are OpenAPI
 * components and schema ids). Records the router for populates of other routers.
 */
export function registerRouterModels(fastify: FastifyInstance, options: ResolvedRouterOptions): void {
  const router = `CRUDRouter '${fastify.prefix === '' ? '/' : fastify.prefix}'`
  const checks: Array<[SetupErrorCode, string, MongoModelSchema, MongoModelSchema | undefined, Set<string>]> = [
    ['FMC_ERR_OPTIONS_INVALID', router, options.model, options.modelOut, new Set(options.populates.map((populate) => populate.field))],
    ...options.lookups.map((l): [SetupErrorCode, string, MongoModelSchema, MongoModelSchema | undefined, Set<string>] => [
      'FMC_ERR_LOOKUP_INVALID', `CRUDLookup '${l.prefix}' of ${router}`, l.model, l.modelOut, new Set(),
    ]),
    ...options.embeds.map((e): [SetupErrorCode, string, MongoModelSchema, MongoModelSchema | undefined, Set<string>] => [
      'FMC_ERR_EMBED_INVALID', `CRUDEmbed '${e.embedName}' of ${router}`, e.model, e.modelOut, new Set(),
    ]),
  ]
  for (const [code, where, model, modelOut, populated] of checks) {
    const mismatch = modelOut === undefined ? undefined : checkModelOut(model, modelOut, populated)
    if (mismatch !== undefined) {
      throw new SetupError(
        code,
        `${where}: modelOut ${modelOut?.$id} does not fit the model ${model.$id}: ${mismatch}; a field the model does not store could never be served`
      )
    }
  }
  const registry = appRegistry(fastify)
  const models: Array<[MongoModelSchema | undefined, string]> = [
    [options.model, 'model'],
    [options.modelOut, 'modelOut'],
    ...options.populates.flatMap((p): Array<[MongoModelSchema | undefined, string]> => [
      [p.model, `populate '${p.field}' model`],
      [p.modelOut, `populate '${p.field}' modelOut`],
    ]),
    ...options.lookups.flatMap((l): Array<[MongoModelSchema | undefined, string]> => [
      [l.model, `lookup '${l.prefix}' model`],
      [l.modelOut, `lookup '${l.prefix}' modelOut`],
    ]),
    ...options.embeds.flatMap((e): Array<[MongoModelSchema | undefined, string]> => [
      [e.model, `embed '${e.embedName}' model`],
      [e.modelOut, `embed '${e.embedName}' modelOut`],
    ]),
  ]
  for (const [model, role] of models) {
    if (model === undefined) continue
    registry.addModel(model, `${router} (${role})`)
    // A model nested in another (`tags: Type.Array(Tag)`) has its name too: one name, one model.
    for (const nested of nestedModels(model)) registry.addModel(nested, `${router} (${role}, nested in ${model.$id})`)
  }
  registry.addRouter(options.db, options.collectionName, options.modelOut, router)
}
