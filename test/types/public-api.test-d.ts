/**
 * Type tests of the public surface: checked by `tsc` (npm run typecheck), never executed.
 * Each `@ts-expect-error` line must fail to compile, or the type check fails.
 */

import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyInstance } from 'fastify'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, CRUDRouter, type CRUDRouterOptions, type DriverDb, HTTPException, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { Db } from 'mongodb'

declare const app: FastifyInstance
declare const driverDb: Db

const User = MongoModel('User', { name: Type.String(), friends: Type.Optional(Type.Array(ObjectIdField())) })
const UserOut = MongoModelOut('UserOut', { name: Type.String() })

export async function typeTests(): Promise<void> {
  const embedded = await openEmbedded()
  // Both the embedded engine and the official driver's Db are accepted.
  const fromEngine: DriverDb = embedded
  const fromDriver: DriverDb = driverDb
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db: fromDriver, collectionName: 'users', prefix: '/users' })
  await app.register(CRUDRouter, {
    model: User,
    db: fromEngine,
    collectionName: 'users',
    identifierField: 'name',
    notFoundStatus: 404,
    dependenciesDeleteOne: [
      async (request) => {
        if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
      },
    ],
    filterDependency: (request) => ({ name: String(request.headers['x-user']) }),
    populates: [new CRUDPopulate({ field: 'friends', collection: 'people', model: User, modelOut: UserOut })],
    lookups: [new CRUDLookup({ model: User, collectionName: 'c', prefix: 'children', localField: '_id', foreignField: 'name' })],
    embeds: [new CRUDEmbed({ model: User, embedName: 'items' })],
  })

  // @ts-expect-error collectionName is required
  const missing: CRUDRouterOptions = { model: User, db: embedded }
  // @ts-expect-error notFoundStatus is 400 or 404
  const badStatus: CRUDRouterOptions = { model: User, db: embedded, collectionName: 'u', notFoundStatus: 500 }
  // @ts-expect-error dependencies are per route: there is no shared list
  const shared: CRUDRouterOptions = { model: User, db: embedded, collectionName: 'u', dependencies: [] }
  // @ts-expect-error a plain object is not a model
  const notModel: CRUDRouterOptions = { model: { type: 'object' }, db: embedded, collectionName: 'u' }
  // A router leaves its _batch, _groups and _events out one by one, with booleans.
  const quiet: CRUDRouterOptions = { model: User, db: embedded, collectionName: 'u', disableBatch: true, disableGroups: false, disableEvents: true }
  // @ts-expect-error disable* keys are booleans
  const noisy: CRUDRouterOptions = { model: User, db: embedded, collectionName: 'u', disableEvents: 'yes' }
  // Child declarations take the disable* keys, as booleans; an embed has no PUT route to disable.
  const lookupOptions = { model: User, collectionName: 'c', prefix: 'children', localField: '_id', foreignField: 'name' }
  new CRUDLookup({ ...lookupOptions, disableReplaceOne: true, disableDeleteOne: false })
  new CRUDEmbed({ model: User, embedName: 'items', disableGetAll: true, disableDeleteOne: true })
  // @ts-expect-error disable* keys are booleans
  new CRUDLookup({ ...lookupOptions, disableGetAll: 'yes' })
  // @ts-expect-error embedded items have no PUT route
  new CRUDEmbed({ model: User, embedName: 'items', disableReplaceOne: true })
  void [missing, badStatus, shared, notModel, quiet, noisy]
}
