/**
 * Type tests of CRUDRouter's options, typed after the models: checked by `tsc` (npm run typecheck), never
 * executed. Each `@ts-expect-error` line must fail to compile, or the type check fails.
 */

import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { expectTypeOf } from 'expect-type'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  CRUDEmbed,
  CRUDLookup,
  CRUDPopulate,
  CRUDRouter,
  type CRUDRouterOptions,
  type Dependency,
  type DriverDb,
  type FilterDependency,
  type InModel,
  MongoModel,
  MongoModelOut,
  ObjectIdField,
  type OutModel,
  type Static,
  Type,
  type UnvalidatedBody,
} from 'fastify-mongo-crud'
import type { Db, Filter } from 'mongodb'

declare const app: FastifyInstance
declare const driverDb: Db
declare const embeddedDb: EmbeddedDb

const User = MongoModel('User', {
  name: Type.String(),
  email: Type.String(),
  age: Type.Optional(Type.Integer()),
  owner: Type.String(),
  friends: Type.Optional(Type.Array(ObjectIdField())),
})
const UserOut = MongoModelOut('UserOut', { name: Type.String(), email: Type.String() })
type UserDoc = Static<typeof User>

export async function staticTypes(): Promise<void> {
  // Static is the package's own export and gives the document type, `id` included.
  expectTypeOf<UserDoc>().toEqualTypeOf<{ id?: string | null, name: string, email: string, age?: number, owner: string, friends?: string[] }>()
  expectTypeOf<Static<typeof UserOut>>().toEqualTypeOf<{ id: string, name: string, email: string }>()
  // The brands: an input model is not an output model, and neither is a plain schema.
  expectTypeOf(User).toExtend<InModel>()
  expectTypeOf(User).not.toExtend<OutModel>()
  expectTypeOf(UserOut).toExtend<OutModel>()
  expectTypeOf(UserOut).not.toExtend<InModel>()
  expectTypeOf(Type.Object({ name: Type.String() }, { $id: 'Plain' })).not.toExtend<InModel>()
}

export async function routerOptions(): Promise<void> {
  // The driver's Db and the engine's EmbeddedDb are both databases a router takes.
  expectTypeOf(driverDb).toExtend<DriverDb>()
  expectTypeOf(embeddedDb).toExtend<DriverDb>()
  expectTypeOf(await openEmbedded()).toExtend<DriverDb>()
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db: driverDb, collectionName: 'users' })
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'users', prefix: '/users' })

  await app.register(CRUDRouter, {
    model: User,
    modelOut: UserOut,
    db: embeddedDb,
    collectionName: 'users',
    identifierField: 'email',
    dependenciesCreateOne: [
      (request) => {
        // Dependencies run before validation: the keys are the model's, the values not yet checked.
        expectTypeOf(request.body).toEqualTypeOf<UnvalidatedBody<UserDoc>>()
        expectTypeOf(request.body?.name).toEqualTypeOf<unknown>()
        // @ts-expect-error not a field of the model
        void request.body?.nmae
        expectTypeOf(request.params).toEqualTypeOf<{ readonly [name: string]: string | undefined }>()
      },
    ],
    dependenciesUpdateOne: [(request) => expectTypeOf(request.body).toEqualTypeOf<UnvalidatedBody<UserDoc>>()],
    dependenciesReplaceOne: [(request) => expectTypeOf(request.body).toEqualTypeOf<UnvalidatedBody<UserDoc>>()],
    dependenciesDeleteOne: [(request) => expectTypeOf(request.body).toEqualTypeOf<unknown>()],
    filterDependency: (request) => {
      expectTypeOf(request.params).toEqualTypeOf<{ readonly [name: string]: string | undefined }>()
      const filter = { owner: String(request.headers['x-user']), age: { $gte: 18 } }
      expectTypeOf(filter).toExtend<Filter<UserDoc>>()
      return filter
    },
  })
  // Indexes name the model's fields (or `_id`, or a dotted path under a field).
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', indexes: [{ key: { age: 1, _id: -1 } }, { key: { 'friends.0': 1 } }, { key: { email: 1 }, unique: true, name: 'by_email' }] })
  // @ts-expect-error not a field of the model
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', indexes: [{ key: { agee: 1 } }] })
  // @ts-expect-error a direction is 1 or -1
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', indexes: [{ key: { age: 2 } }] })
  // An async scope is fine too.
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: async () => ({ $or: [{ name: 'a' }, { age: 3 }] }) })

  // @ts-expect-error a scope is a filter, not a number
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: () => 42 })
  // @ts-expect-error the scope's values have the model's types (age is a number)
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: () => ({ age: 'old' }) })
  // @ts-expect-error a header may be an array: the scope must say which string it means
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: (request) => ({ owner: request.headers['x-user'] }) })
  // @ts-expect-error identifierField is '_id' or a field of the model
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', identifierField: 'nope' })
  // sortable, filterable and defaultSort name fields of the model, `id`/`_id`, or dotted paths under a field.
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', sortable: ['age', 'id', 'friends.0'], filterable: ['_id', 'owner'], defaultSort: { field: 'age', direction: -1 } })
  // @ts-expect-error not a field of the model
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', sortable: ['age', 'agee'] })
  // @ts-expect-error not a field of the model
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterable: ['nmae'] })
  // @ts-expect-error not a field of the model
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', defaultSort: { field: 'agee' } })
  // @ts-expect-error a scope's keys are the model's fields (a function's result gets no excess-key check of its own)
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: () => ({ owner: 'a', ownr: 'b' }) })
  // @ts-expect-error the filter grammar takes $and, $or and $nor at the top, no other operator
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: () => ({ $where: 'true' }) })
  // @ts-expect-error an output model is not an input model
  await app.register(CRUDRouter, { model: UserOut, db: embeddedDb, collectionName: 'u' })
  // @ts-expect-error an input model is not an output model
  await app.register(CRUDRouter, { model: User, modelOut: User, db: embeddedDb, collectionName: 'u' })
  // @ts-expect-error the body is not validated yet when a dependency runs: its values are unknown
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', dependenciesCreateOne: [(request) => request.body?.name.toUpperCase()] })

  // The option type itself, for code that builds options apart from register.
  const options: CRUDRouterOptions<typeof User, typeof UserOut> = { model: User, modelOut: UserOut, db: embeddedDb, collectionName: 'u', identifierField: '_id' }
  // @ts-expect-error identifierField is '_id' or a field of the model
  const badIdentifier: CRUDRouterOptions<typeof User> = { model: User, db: embeddedDb, collectionName: 'u', identifierField: 'nope' }
  void [options, badIdentifier]
}

export async function functionsDeclaredApart(): Promise<void> {
  // Functions written before these types (a plain FastifyRequest, the bare Dependency / FilterDependency)
  // still fit: they ask less of the request than it carries.
  const adminOnly: Dependency = async (request) => void request.headers
  const plainScope = async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) })
  const scope: FilterDependency = (request) => ({ owner: String(request.headers['x-user']) })
  const userScope: FilterDependency<typeof User> = () => ({ age: { $lt: 100 } })
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: plainScope, dependenciesCreateOne: [adminOnly] })
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: scope })
  await app.register(CRUDRouter, { model: User, db: embeddedDb, collectionName: 'u', filterDependency: userScope })
}

export function relationOptions(): void {
  const Item = MongoModel('Item', { label: Type.String() })
  const ItemOut = MongoModelOut('ItemOut', { label: Type.String() })
  new CRUDEmbed({
    model: Item,
    modelOut: ItemOut,
    embedName: 'items',
    dependenciesCreateOne: [(request) => expectTypeOf(request.body).toEqualTypeOf<UnvalidatedBody<Static<typeof Item>>>()],
  })
  new CRUDLookup({
    model: Item,
    collectionName: 'items',
    prefix: 'items',
    localField: '_id',
    foreignField: 'owner',
    dependenciesUpdateOne: [(request) => expectTypeOf(request.body).toEqualTypeOf<UnvalidatedBody<Static<typeof Item>>>()],
  })
  new CRUDPopulate({ field: 'friends', collection: 'users', model: User, modelOut: UserOut })
  // @ts-expect-error an output model is not an input model
  new CRUDEmbed({ model: ItemOut, embedName: 'items' })
  // @ts-expect-error an input model is not an output model
  new CRUDLookup({ model: Item, modelOut: Item, collectionName: 'items', prefix: 'items', localField: '_id', foreignField: 'owner' })
  // @ts-expect-error an output model is not an input model
  new CRUDPopulate({ field: 'friends', collection: 'users', model: UserOut })
  // @ts-expect-error embedded items have no PUT route, so no dependency of one
  new CRUDEmbed({ model: Item, embedName: 'items', dependenciesReplaceOne: [] })
}
