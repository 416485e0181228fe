import type { FastifyRequest, FastifyServerOptions } from 'fastify'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, CRUDRouter, createApp, type DriverDb, HTTPException, securedBy } from 'fastify-mongo-crud'
import { Address, Artist, ArtistOut, Message, Note, Track, User, UserOut, UserOutV1 } from './models.js'

/**
 * The demo API. Authentication is deliberately simple (headers set by a gateway in front of it):
 * `x-role: admin` marks administrators, `x-user: <user id>` names the caller. `fastify` goes to
 * createApp (the server passes its logger).
 */
export async function buildDemo(db: DriverDb, fastify: FastifyServerOptions = {}) {
  const app = await createApp({
    fastify,
    title: 'fastify-mongo-crud demo',
    version: '1.0.0',
    description:
      'Users (password hidden, admin-only delete) with messages and addresses, per-user notes, tracks populating artists, two API versions.',
    openapi: {
      license: { name: 'MIT', identifier: 'MIT' },
      // The two headers a gateway in front of the demo sets; Swagger UI's Authorize button sends them.
      securitySchemes: {
        adminRole: { type: 'apiKey', in: 'header', name: 'x-role', description: 'admin for administrators' },
        userId: { type: 'apiKey', in: 'header', name: 'x-user', description: "The caller's user id (24 hexadecimal characters)" },
      },
      tags: [
        { name: 'users v1', description: 'Version 1 of the users: name and e-mail, with their messages and addresses' },
        { name: 'users v2', description: 'Version 2 of the users, addressed by e-mail, with their role and age' },
        { name: 'notes', description: "The caller's own notes (x-user header)" },
        { name: 'music', description: 'Artists, and tracks populating their artists' },
      ],
    },
  })

  const adminOnly = securedBy('adminRole', async (request: FastifyRequest) => {
    if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  })
  const callerId = (request: FastifyRequest) => {
    const user = request.headers['x-user']
    if (typeof user !== 'string' || !/^[0-9a-f]{24}$/i.test(user)) {
      throw new HTTPException(401, 'Send your user id in the x-user header')
    }
    return user
  }

  // Two versions of the same collection, served side by side (docs/openapi.md).
  await app.register(CRUDRouter, {
    model: User,
    modelOut: UserOutV1,
    db,
    collectionName: 'users',
    prefix: '/api/v1/users',
    tags: ['users v1'],
    // The operationIds of this version: listUsersV1, getUserV1... (version 2 keeps listUsers, getUser...).
    name: 'usersV1',
    singular: 'userV1',
    dependenciesDeleteOne: [adminOnly],
    // A user's messages live in their own collection; the addresses inside the user document.
    lookups: [
      new CRUDLookup({
        model: Message,
        collectionName: 'messages',
        prefix: 'messages',
        localField: '_id',
        foreignField: 'userId',
        dependenciesDeleteOne: [adminOnly],
      }),
    ],
    embeds: [new CRUDEmbed({ model: Address, embedName: 'addresses' })],
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

  // Every route of this router only reaches the caller's own notes; client filters narrow them (as api.json's scope does by default).
  await app.register(CRUDRouter, {
    model: Note,
    db,
    collectionName: 'notes',
    prefix: '/api/v2/notes',
    tags: ['notes'],
    filterDependency: securedBy('userId', (request: FastifyRequest) => ({ owner: callerId(request) })),
    filtersUnderScope: 'and',
    dependenciesCreateOne: [
      async (request) => {
        const owner = (request.body as { owner?: unknown } | undefined)?.owner
        if (owner !== callerId(request)) throw new HTTPException(403, 'Notes can only be created for yourself')
      },
    ],
  })
  await app.register(CRUDRouter, {
    model: Artist,
    modelOut: ArtistOut,
    db,
    collectionName: 'artists',
    prefix: '/api/v2/artists',
    tags: ['music'],
  })
  await app.register(CRUDRouter, {
    model: Track,
    db,
    collectionName: 'tracks',
    prefix: '/api/v2/tracks',
    tags: ['music'],
    populates: [new CRUDPopulate({ field: 'artists', collection: 'artists', model: Artist, modelOut: ArtistOut })],
  })
  return app
}
