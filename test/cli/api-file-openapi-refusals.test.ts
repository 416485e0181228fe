/**
 * docs/api-file.md, Tokens: the OpenAPI document of an API file lists the refusals of its checks. A route
 * that needs a token lists 401 with the error schema; one a claim check runs on lists 403 too, and one
 * whose only check is the token lists no 403. A header scope or a header guard of status 401 lists 401.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] }
const TAG = { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] }
const COMMENT = { type: 'object', properties: { text: { type: 'string' }, noteId: { type: 'string', format: 'objectid' } }, required: ['text', 'noteId'] }

const api = (required: boolean) => ({
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET', required },
  models: { Note: NOTE, Tag: TAG, Comment: COMMENT },
  routers: {
    notes: {
      prefix: '/notes',
      collection: 'notes',
      model: 'Note',
      scope: { field: 'owner', claim: 'sub' },
      lookups: [{ prefix: 'comments', collection: 'comments', model: 'Comment', foreignField: 'noteId' }],
      embeds: [{ name: 'tags', model: 'Tag' }],
    },
    staff: { prefix: '/staff', collection: 'notes', model: 'Note', guards: { deleteOne: [{ claim: 'role', equals: 'admin' }] } },
    gated: {
      prefix: '/gated',
      collection: 'notes',
      model: 'Note',
      scope: { field: 'owner', header: 'x-user' },
      guards: { createOne: [{ header: 'x-captcha', equals: 'ok', status: 401, detail: 'Solve the captcha' }] },
    },
  },
})

type Operation = { responses: Record<string, { description: string, content?: Record<string, { schema: unknown }> }> }
type Paths = Record<string, Record<string, Operation>>

async function openapiOf(db: EmbeddedDb, required: boolean): Promise<Paths> {
  const app = await buildApiApp(parseApiFile(JSON.stringify(api(required))), db, { env: { JWT_SECRET: SECRET }, fastify: { logger: false } })
  try {
    return (await app.inject('/openapi.json')).json().paths as Paths
  } finally {
    await app.close()
  }
}

const operations = (paths: Paths, prefix: string) =>
  Object.entries(paths)
    .filter(([path]) => path === prefix || path.startsWith(`${prefix}/`))
    .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ at: `${method} ${path}`, operation })))

const ERROR_SCHEMA = { $ref: '#/components/schemas/HTTPError' }

describe('OpenAPI of an API file: the refusals of its checks', () => {
  let db: EmbeddedDb
  let required: Paths
  let optional: Paths
  before(async () => {
    db = await openEmbedded()
    required = await openapiOf(db, true)
    optional = await openapiOf(db, false)
  })
  after(async () => {
    await db.close()
  })

  it('every route that needs a token lists 401 with the error schema: the six, _groups, _events, _batch, child routes', () => {
    const all = operations(required, '')
    assert.ok(all.length > 20, `${all.length} operations`)
    assert.ok(all.some(({ at }) => at === 'post /notes/_batch') && all.some(({ at }) => at === 'get /notes/{id}/comments/_groups'))
    for (const { at, operation } of operations(required, '/notes').concat(operations(required, '/staff'))) {
      const refusal = operation.responses['401']
      assert.ok(refusal !== undefined, `${at} lists no 401`)
      assert.match(refusal.description, /token/, at)
      const schema = refusal.content?.['application/json']?.schema as { required?: string[], properties?: object }
      if (at.endsWith('/_batch')) assert.deepEqual([schema.required, Object.keys(schema.properties ?? {})], [['detail'], ['detail', 'index']], at)
      else assert.deepEqual(schema, ERROR_SCHEMA, at)
    }
  })

  it("403 where a claim check refuses (the scope's claim, a guard's claim), none where only the token is checked", () => {
    for (const { at, operation } of operations(required, '/notes')) assert.ok(operation.responses['403'], `${at} lists no 403`)
    assert.match(required['/notes']!['get']!.responses['403']!.description, /the token's 'sub' claim does not name a valid owner/)
    assert.match(required['/staff/{id}']!['delete']!.responses['403']!.description, /the token's 'role' claim does not allow this route/)
    for (const at of [['/staff', 'get'], ['/staff', 'post'], ['/staff/{id}', 'get'], ['/staff/_groups', 'get'], ['/staff/_events', 'get']] as const) {
      assert.equal(required[at[0]]![at[1]]!.responses['403'], undefined, at.join(' '))
    }
  })

  it('auth.required false: only the routes a claim check runs on list 401', () => {
    assert.ok(optional['/staff/{id}']!['delete']!.responses['401'])
    assert.ok(optional['/notes']!['get']!.responses['401'])
    for (const at of [['/staff', 'get'], ['/staff', 'post'], ['/staff/{id}', 'patch']] as const) assert.equal(optional[at[0]]![at[1]]!.responses['401'], undefined, at.join(' '))
  })

  it("a header scope lists 401 with its detail, a header guard its status and detail", () => {
    assert.match(optional['/gated']!['get']!.responses['401']!.description, /Send the x-user header/)
    const create = optional['/gated']!['post']!.responses
    assert.match(create['401']!.description, /Send the x-user header/)
    assert.match(create['401']!.description, /Solve the captcha/)
  })
})
