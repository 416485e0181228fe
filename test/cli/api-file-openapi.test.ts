import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'

type Operation = { operationId: string, security?: Array<Record<string, string[]>> }
type Spec = {
  info: Record<string, unknown>
  servers: unknown
  security: unknown
  tags?: unknown
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes?: Record<string, unknown> }
}

const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] }
const ITEM = { type: 'object', properties: { label: { type: 'string' }, noteId: { type: 'string', format: 'objectid' } }, required: ['label'] }

/** The OpenAPI document of the app an API file declares. */
async function documentOf(db: EmbeddedDb, file: unknown): Promise<Spec> {
  const app = await buildApiApp(parseApiFile(JSON.stringify(file, null, 2), 'api.json'), db, { fastify: { logger: false } })
  try {
    return (await app.inject('/openapi.json')).json()
  } finally {
    await app.close()
  }
}

/** `method path` -> the operation's security (undefined: public). */
const securityByRoute = (spec: Spec) =>
  Object.fromEntries(Object.entries(spec.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method} ${path}`, op.security])))

describe('API file: the OpenAPI document', () => {
  let db: EmbeddedDb
  before(async () => {
    db = await openEmbedded()
  })
  after(async () => {
    await db.close()
  })

  it("openapi: license, contact, servers, tags, securitySchemes and security go to the document as createApp's openapi option", async () => {
    const openapi = {
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Team', email: 'team@example.com' },
      servers: [{ url: 'https://api.example.com', description: 'production' }],
      tags: [{ name: 'notes', description: 'The notes' }],
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { 'notes:write': 'Write notes' } } } },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example.com/.well-known/openid-configuration', description: 'Sign-in' },
      },
      security: [{ bearer: [] }],
    }
    const spec = await documentOf(db, { title: 'Notes', version: '2.0.0', openapi, models: { Note: NOTE }, routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } } })
    assert.deepEqual(spec.info, { title: 'Notes', version: '2.0.0', license: openapi.license, contact: openapi.contact })
    assert.deepEqual(spec.servers, openapi.servers)
    assert.deepEqual(spec.tags, openapi.tags)
    assert.deepEqual(spec.components.securitySchemes, openapi.securitySchemes)
    assert.deepEqual(spec.security, openapi.security)
  })

  it('name and singular: the operationIds of the router (default: from the collection)', async () => {
    const spec = await documentOf(db, {
      models: { Note: NOTE },
      routers: {
        old: { prefix: '/v1/notes', collection: 'notes', model: 'Note', name: 'notesV1', singular: 'noteV1' },
        current: { prefix: '/v2/notes', collection: 'notes', model: 'Note' },
      },
    })
    assert.deepEqual([spec.servers, spec.security, spec.components.securitySchemes], [[{ url: '/' }], [], undefined], 'the defaults, without openapi')
    const ids = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
    assert.deepEqual(ids.sort(), [
      'batchNotes', 'batchNotesV1', 'createNote', 'createNoteV1', 'deleteNote', 'deleteNoteV1', 'getNote', 'getNoteV1', 'groupNotes', 'groupNotesV1',
      'listNotes', 'listNotesV1', 'replaceNote', 'replaceNoteV1', 'updateNote', 'updateNoteV1', 'watchNotes', 'watchNotesV1',
    ])
  })

  it("securityScheme: the routes a guard or the scope checks require that scheme (child routes too; a route's checks together)", async () => {
    const spec = await documentOf(db, {
      openapi: {
        securitySchemes: {
          adminRole: { type: 'apiKey', in: 'header', name: 'x-role' },
          userId: { type: 'apiKey', in: 'header', name: 'x-user' },
        },
      },
      models: { Note: NOTE, Item: ITEM },
      routers: {
        notes: {
          prefix: '/notes',
          collection: 'notes',
          model: 'Note',
          scope: { field: 'owner', header: 'x-user', securityScheme: 'userId' },
          guards: { deleteOne: [{ header: 'x-role', equals: 'admin', securityScheme: 'adminRole' }] },
          embeds: [{ name: 'items', model: 'Item', disable: ['getAll', 'getOne', 'createOne', 'updateOne'] }],
          lookups: [{ prefix: 'tagged', collection: 'items', model: 'Item', foreignField: 'noteId', disable: ['getOne', 'createOne', 'replaceOne', 'updateOne', 'deleteOne'] }],
        },
        tags: {
          prefix: '/tags',
          collection: 'tags',
          model: 'Item',
          disable: ['getOne', 'replaceOne', 'updateOne', 'deleteOne'],
          guards: { createOne: [{ header: 'x-role', equals: 'admin', securityScheme: 'adminRole' }] },
          lookups: [{ prefix: 'items', collection: 'items', model: 'Item', foreignField: 'noteId', disable: ['getOne', 'replaceOne', 'updateOne', 'deleteOne'], guards: { getAll: [{ header: 'x-role', equals: 'admin', securityScheme: 'adminRole' }] } }],
        },
      },
    })
    const user = [{ userId: [] }]
    assert.deepEqual(securityByRoute(spec), {
      'get /notes': user,
      'post /notes': user,
      'get /notes/{id}': user,
      'put /notes/{id}': user,
      'patch /notes/{id}': user,
      'delete /notes/{id}': [{ userId: [], adminRole: [] }],
      'get /notes/_groups': user,
      'get /notes/_events': user,
      // Each operation needs what its route needs: the alternatives of the write routes.
      'post /notes/_batch': [{ userId: [] }, { userId: [], adminRole: [] }],
      'delete /notes/{id}/items/{embed_id}': user,
      'get /notes/{id}/tagged': user,
      'get /notes/{id}/tagged/_groups': user,
      'get /tags': undefined,
      'post /tags': [{ adminRole: [] }],
      'get /tags/_groups': undefined,
      'get /tags/_events': undefined,
      'post /tags/_batch': [{ adminRole: [] }],
      'get /tags/{id}/items': [{ adminRole: [] }],
      'post /tags/{id}/items': undefined,
      'get /tags/{id}/items/_groups': [{ adminRole: [] }],
      'post /tags/{id}/items/_batch': undefined,
    })
    assert.deepEqual(Object.keys(spec.components.securitySchemes ?? {}), ['adminRole', 'userId'])
  })

  it('a guard or scope without securityScheme is documented by an apiKey scheme named after its header, unless the file declares a scheme of that name', async () => {
    const spec = await documentOf(db, {
      openapi: { securitySchemes: { 'x-role': { type: 'apiKey', in: 'header', name: 'x-role', description: 'admin or member' } } },
      models: { Note: NOTE },
      routers: {
        notes: {
          prefix: '/notes',
          collection: 'notes',
          model: 'Note',
          disable: ['getOne', 'replaceOne', 'updateOne'],
          scope: { field: 'owner', header: 'X-User' },
          guards: { deleteOne: [{ header: 'x-role', equals: 'admin' }, { header: 'x-api+key', equals: 'k' }] },
        },
      },
    })
    assert.deepEqual(spec.components.securitySchemes, {
      'x-role': { type: 'apiKey', in: 'header', name: 'x-role', description: 'admin or member' },
      'x-user': { type: 'apiKey', in: 'header', name: 'x-user' },
      'x-api_key': { type: 'apiKey', in: 'header', name: 'x-api+key' },
    })
    assert.deepEqual(securityByRoute(spec), {
      'get /notes': [{ 'x-user': [] }],
      'post /notes': [{ 'x-user': [] }],
      'delete /notes/{id}': [{ 'x-user': [], 'x-role': [], 'x-api_key': [] }],
      'get /notes/_groups': [{ 'x-user': [] }],
      'get /notes/_events': [{ 'x-user': [] }],
      'post /notes/_batch': [{ 'x-user': [] }, { 'x-user': [], 'x-role': [], 'x-api_key': [] }],
    })
  })
})
