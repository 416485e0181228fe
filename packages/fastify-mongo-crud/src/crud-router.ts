import type { FastifyBaseLogger, FastifyInstance, FastifyRegisterOptions, FastifyTypeProvider, RawServerBase, RawServerDefault } from 'fastify'
import type { InModel, OutModel } from './models.js'
import type { CRUDRouterOptions } from './options.js'
import { CRUDRouter as routerPlugin } from './plugin.js'

/**
 * Fastify's own `register` overloads infer a plugin's options from the object literal they are given, so
 * the dependencies in it would get no parameter types and the models no checks. CRUDRouter's options type
 * carries a key no object has (a phantom: it exists only in this type; its text is what a user reads when
 * the error reported is Fastify's overload), so those overloads never match it, and the overload declared
 * below, which infers the models from `model` and `modelOut` and types the rest after them, applies.
 */
declare const CRUD_ROUTER_OPTIONS: unique symbol

/** The type of `CRUDRouter`: a Fastify plugin whose options are checked by the overload below. */
export type CRUDRouterPlugin = (
  fastify: FastifyInstance,
  options: CRUDRouterOptions & { readonly [CRUD_ROUTER_OPTIONS]: 'these options do not fit CRUDRouterOptions<typeof model, typeof modelOut>: give them that type to see why' }
) => Promise<void>

/** The CRUD router plugin: `app.register(CRUDRouter, { model, db, collectionName, ... })`. */
export const CRUDRouter: CRUDRouterPlugin = routerPlugin

declare module 'fastify' {
  // Interface merging requires the same type parameters as Fastify's declaration (and an interface).
  interface FastifyRegister<
    T = void,
    RawServer extends RawServerBase = RawServerDefault,
    TypeProviderDefault extends FastifyTypeProvider = FastifyTypeProvider,
    LoggerDefault extends FastifyBaseLogger = FastifyBaseLogger,
  > {
    // biome-ignore lint/style/useShorthandFunctionType: an interface merges with Fastify's overloads; a type alias would clash
    <M extends InModel, O extends OutModel = OutModel>(plugin: CRUDRouterPlugin, opts: FastifyRegisterOptions<CRUDRouterOptions<M, O>>): T
  }
}
