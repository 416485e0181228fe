/**
 * Type tests of the service API and of securedBy: checked by `tsc` (npm run typecheck), never executed.
 * Each `@ts-expect-error` line must fail to compile, or the type check fails.
 */

import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CRUDRouter, type CrudService, crudService, type DriverDb, HTTPException, MongoModel, MongoModelOut, securedBy, Type } from 'fastify-mongo-crud'

declare const app: FastifyInstance
declare const db: DriverDb
declare const request: FastifyRequest

const User = MongoModel('User', { name: Type.String(), password: Type.String(), age: Type.Optional(Type.Integer()) })
const UserOut = MongoModelOut('UserOut', { name: Type.String() })

export async function serviceTypeTests(): Promise<void> {
  // securedBy keeps the dependency's own type, so the router still types the request after the model.
  const adminOnly = securedBy('adminRole', async (req: FastifyRequest) => {
    if (req.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  })
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db, collectionName: 'users', dependenciesDeleteOne: [adminOnly], name: 'users' })

  // With its models, the service answers documents of the output model.
  const users = crudService(app, 'users', { model: User, modelOut: UserOut })
  const list = await users.list({ request, query: { filters: { name: 'ann' }, limit: 10, sort_by: 'name' } })
  const name: string = list[0]!.name
  const id: string = list[0]!.id
  // @ts-expect-error the output model hides the password
  list[0]!.password
  const created = await users.create({ request, body: { name: 'ann', password: 'secret' } })
  created.name satisfies string
  // @ts-expect-error create bodies are the model's: the password is required
  await users.create({ request, body: { name: 'ann' } })
  await users.update({ request, id, body: { age: 3 } })
  // @ts-expect-error age is an integer
  await users.update({ request, id, body: { age: 'old' } })
  // @ts-expect-error every operation needs the request (the scope is computed from it)
  await users.get({ id })
  await users.delete({ request, id })

  // Without modelOut, documents are the model's with a string id.
  const plain = crudService(app, 'people', { model: User })
  const person = await plain.get({ request, id: 'x' })
  person.password satisfies string
  person.id satisfies string

  // Without models, documents are untyped records of the model.
  const untyped: CrudService = crudService(app, 'users')
  await untyped.list({ request })

  // @ts-expect-error a model that is not an input model
  crudService(app, 'users', { model: UserOut })
  void name
}
