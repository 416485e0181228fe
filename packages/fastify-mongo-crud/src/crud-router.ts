import type { FastifyBaseLogger, FastifyInstance, FastifyRegisterOptions, FastifyTypeProvider, RawServerBase, RawServerDefault } from 'fastify'
import type { ScopeFilter } from './dependency.js'
import type { InModel, OutModel } from './models.js'
import type { CRUDRouterOptions } from './options.js'
import { CRUDRouter as routerPlugin } from './plugin.js'

/**
 * Fastify's own `register` overloads infer a plugin's options from the object literal they are given, so
 * the dependencies in it would get no parameter types and the models no checks. CRUDRouter's options type
 * carries a key no object has (a phantom: it exists only in this type; its text is what a user reads should
 * an error be reported against Fastify's overloads, as for a call without options), so those overloads never
 * match it, and the signature declared below, which infers the models from `model` and `modelOut` and types
 * the rest after them, applies.
 */
declare const CRUD_ROUTER_OPTIONS: unique symbol

/** The type of `CRUDRouter`: a Fastify plugin whose options are checked by the overload below. */
export type CRUDRouterPlugin = (
  fastify: FastifyInstance,
  options: CRUDRouterOptions & { readonly [CRUD_ROUTER_OPTIONS]: 'these options do not fit CRUDRouterOptions<typeof model, typeof modelOut>: give them that type to see why' }
) => Promise<void>

/** The CRUD router plugin: `app.register(CRUDRouter, { model, db, collectionName, ... })`. */
export const CRUDRouter: CRUDRouterPlugin = routerPlugin

/**
 * CRUDRouter's `register` signature. Fastify's `FastifyRegister` extends it (below) rather than declaring
 * it among its own overloads: inherited signatures come after an interface's own, so this one is tried
 * last. When no overload fits, TypeScript reports the last one's error elaborated down to the wrong
 * option (`Type '"emial"' is not assignable to type '"_id" | "name" | "email"'`), and the dependencies'
 * parameters are typed by it, so that one wrong option leaves `request.body` typed after the model.
 */
export type CRUDRouterRegister<T> = <M extends InModel, O extends OutModel = OutModel, S extends ScopeFilter<M> = ScopeFilter<M>>(
  plugin: CRUDRouterPlugin,
  opts: FastifyRegisterOptions<CRUDRouterOptions<M, O, S>>
) => T

declare module 'fastify' {
  // Interface merging requires the same type parameters as Fastify's declaration (and an interface).
  interface FastifyRegister<
    T = void,
    RawServer extends RawServerBase = RawServerDefault,
    TypeProviderDefault extends FastifyTypeProvider = FastifyTypeProvider,
    LoggerDefault extends FastifyBaseLogger = FastifyBaseLogger,
  > extends CRUDRouterRegister<T> {}
}
