import type { FastifyRequest } from 'fastify'
import { CRUDRouter, createApp, type DriverDb, HTTPException } from 'fastify-mongo-crud'
import { Note, User, UserOut, UserOutV1 } from './models.js'

/**
 * The demo API. Authentication is deliberately simple (headers set by a gateway in front of it):
 * `x-role: admin` marks administrators, `x-user: <user id>` names the caller.
 */
export async function buildDemo(db: DriverDb) {
  const app = await createApp({
    title: 'fastify-mongo-crud demo',
    version: '1.0.0',
    description: 'Users (password hidden, admin-only delete), per-user notes, two API versions.',
  })

  const adminOnly = async (request: FastifyRequest) => {
    if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  }
  const callerId = (request: FastifyRequest) => {
    const user = request.headers['x-user']
    if (typeof user !== 'string' || !/^[0-9a-f]{24}$/i.test(user)) {
      throw new HTTPException(401, 'Send your user id in the x-user header')
    }
    return user
  }

  // Two versions of the same collection, served side by side (SPEC §9).
  await app.register(CRUDRouter, {
    model: User,
    modelOut: UserOutV1,
    db,
    collectionName: 'users',
    prefix: '/api/v1/users',
    tags: ['users v1'],
    dependenciesDeleteOne: [adminOnly],
  })
  await app.register(CRUDRouter, {
    model: User,
    modelOut: UserOut,
    db,
    collectionName: 'users',
    prefix: '/api/v2/users',
    tags: ['users v2'],
    identifierField: 'email',
    dependenciesDeleteOne: [adminOnly],
  })

  // Every route of this router only reaches the caller's own notes.
  await app.register(CRUDRouter, {
    model: Note,
    db,
    collectionName: 'notes',
    prefix: '/api/v2/notes',
    tags: ['notes'],
    filterDependency: (request) => ({ owner: callerId(request) }),
    dependenciesCreateOne: [
      async (request) => {
        const owner = (request.body as { owner?: unknown } | undefined)?.owner
        if (owner !== callerId(request)) throw new HTTPException(403, 'Notes can only be created for yourself')
      },
    ],
  })
  return app
}
