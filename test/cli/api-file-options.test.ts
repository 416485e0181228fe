import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import type { App } from '../harness/app.ts'
import { createDoc } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore } from '../harness/stores.ts'

const ANN = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const BOB = 'bbbbbbbbbbbbbbbbbbbbbbbb'

/** Every router key of the file format, turned into the router's options, seen through HTTP. */
const API = {
  limits: { defaultLimit: 1 },
  models: {
    Post: {
      type: 'object',
      properties: {
        slug: { type: 'string', minLength: 1 },
        title: { type: 'string' },
        author: { type: 'string', format: 'objectid' },
        rank: { type: 'integer' },
        draft: { type: 'string' },
      },
      required: ['slug', 'title', 'author'],
    },
    Comment: {
      type: 'object',
      properties: { text: { type: 'string' }, postSlug: { type: 'string' }, ip: { type: 'string' } },
      required: ['text', 'postSlug'],
    },
    Comment2: {
      type: 'object',
      properties: { text: { type: 'string' }, postId: { type: 'string', format: 'objectid' } },
      required: ['text', 'postId'],
    },
    Link: { type: 'object', properties: { url: { type: 'string', format: 'uri' }, note: { type: 'string' } }, required: ['url'] },
    LinkOut: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
  routers: {
    posts: {
      prefix: '/posts',
      collection: 'posts',
      model: 'Post',
      hidden: ['draft'],
      identifierField: 'slug',
      notFoundStatus: 404,
      filterable: ['rank'],
      sortable: ['rank'],
      disable: ['replaceOne'],
      scope: { field: 'author', header: 'x-user', filters: 'and' },
      limits: { defaultLimit: 2 },
      lookups: [
        {
          prefix: 'comments',
          collection: 'comments',
          model: 'Comment',
          hidden: ['ip'],
          localField: 'slug',
          foreignField: 'postSlug',
          disable: ['replaceOne'],
          guards: { createOne: [{ header: 'x-captcha', equals: 'ok', status: 401 }] },
        },
      ],
      embeds: [{ name: 'links', model: 'Link', modelOut: 'LinkOut', disable: ['deleteOne'] }],
    },
    threads: {
      prefix: '/threads',
      collection: 'posts',
      model: 'Post',
      modelOut: 'PostOut2',
      defaultSort: { field: 'slug', direction: -1 },
      lookups: [{ prefix: 'comments', collection: 'comments2', model: 'Comment2', foreignField: 'postId' }],
    },
  },
}
;(API.models as Record<string, unknown>)['PostOut2'] = { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] }

describeEachStore('API file keys, through HTTP', (mode) => {
  let store: OpenedStore
  let app: App
  const asAnn = { 'x-user': ANN }
  before(async () => {
    store = await mode.open()
    app = (await buildApiApp(parseApiFile(JSON.stringify(API)), store.db, { fastify: { logger: false } })) as unknown as App
    for (const [slug, rank] of [['a', 3], ['b', 1], ['c', 2]] as const) {
      await createDoc(app, '/posts', { slug, title: slug.toUpperCase(), author: ANN, rank, draft: 'secret' }, asAnn)
    }
    await createDoc(app, '/posts', { slug: 'z', title: 'Z', author: BOB, rank: 9 }, { 'x-user': BOB })
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  it('identifierField, hidden, notFoundStatus: items by slug, hidden fields never shown, 404 when missing', async () => {
    const a = (await app.inject({ url: '/posts/a', headers: asAnn })).json()
    assert.deepEqual(Object.keys(a).sort(), ['author', 'id', 'rank', 'slug', 'title'])
    const missing = await app.inject({ url: '/posts/nope', headers: asAnn })
    assert.equal(missing.statusCode, 404)
  })

  it('limits.defaultLimit, sortable, and scope.filters "and": client filters narrow the scope, never widen it', async () => {
    const page = (await app.inject({ url: '/posts?sort_by=rank', headers: asAnn })).json() as Array<{ slug: string }>
    assert.deepEqual(page.map((p) => p.slug), ['b', 'c'])
    const filtered = (await app.inject({ url: `/posts?filters=${encodeURIComponent('{"rank":{"$gte":2}}')}&sort_by=rank`, headers: asAnn })).json() as Array<{ slug: string }>
    assert.deepEqual(filtered.map((p) => p.slug), ['c', 'a'])
    const wide = (await app.inject({ url: `/posts?filters=${encodeURIComponent('{"rank":9}')}`, headers: asAnn })).json()
    assert.deepEqual(wide, [])
  })

  it('defaultSort: the order of a list that sends no sort_by', async () => {
    const page = (await app.inject({ url: '/threads?limit=10' })).json() as Array<{ slug: string }>
    assert.deepEqual(page.map((p) => p.slug), ['z', 'c', 'b', 'a'])
    const sorted = (await app.inject({ url: '/threads?limit=10&sort_by=slug' })).json() as Array<{ slug: string }>
    assert.deepEqual(sorted.map((p) => p.slug), ['a', 'b', 'c', 'z'])
  })

  it('filterable and sortable: other fields are 422', async () => {
    assert.equal((await app.inject({ url: `/posts?filters=${encodeURIComponent('{"title":"A"}')}`, headers: asAnn })).statusCode, 422)
    assert.equal((await app.inject({ url: '/posts?sort_by=title', headers: asAnn })).statusCode, 422)
  })

  it('disable: the route is not served', async () => {
    const put = await app.inject({ method: 'PUT', url: '/posts/a', headers: asAnn, payload: { slug: 'a', title: 'A2', author: ANN } })
    assert.equal(put.statusCode, 404)
    const childPut = await app.inject({ method: 'PUT', url: '/posts/a/comments/aaaaaaaaaaaaaaaaaaaaaaaa', headers: asAnn, payload: { text: 't' } })
    assert.equal(childPut.statusCode, 404)
  })

  it('lookups: children by localField and foreignField, their hidden fields, their guards (status 401 here)', async () => {
    const refused = await app.inject({ method: 'POST', url: '/posts/a/comments', headers: asAnn, payload: { text: 'hi', ip: '10.0.0.1' } })
    assert.equal(refused.statusCode, 401)
    const created = await app.inject({ method: 'POST', url: '/posts/a/comments', headers: { ...asAnn, 'x-captcha': 'ok' }, payload: { text: 'hi', ip: '10.0.0.1' } })
    assert.equal(created.statusCode, 201)
    assert.deepEqual(Object.keys(created.json()).sort(), ['id', 'postSlug', 'text'])
    assert.equal(created.json().postSlug, 'a')
    assert.deepEqual((await app.inject({ url: '/posts/b/comments', headers: asAnn })).json(), [])
    assert.equal((await app.inject({ url: '/posts/z/comments', headers: asAnn })).statusCode, 404, "another user's post is out of scope")
  })

  it('lookups: localField defaults to _id', async () => {
    const thread = (await app.inject('/threads')).json()[0] as { id: string }
    const child = await createDoc(app, `/threads/${thread.id}/comments`, { text: 'first' })
    assert.equal(child.postId, thread.id)
  })

  it('embeds: items under the parent, shaped by their modelOut, disabled routes not served', async () => {
    const link = await app.inject({ method: 'POST', url: '/posts/a/links', headers: asAnn, payload: { url: 'https://example.com', note: 'private' } })
    assert.equal(link.statusCode, 201)
    assert.deepEqual(Object.keys(link.json()).sort(), ['id', 'url'])
    const removed = await app.inject({ method: 'DELETE', url: `/posts/a/links/${link.json().id}`, headers: asAnn })
    assert.equal(removed.statusCode, 404)
  })

  it("limits: the file's apply to every router, a router's own win", async () => {
    assert.equal((await app.inject('/threads')).json().length, 1)
    assert.equal((await app.inject({ url: '/posts', headers: asAnn })).json().length, 2)
  })

  it('modelOut: a second router on the same collection shows only its output model', async () => {
    const threads = (await app.inject('/threads')).json() as Array<Record<string, unknown>>
    assert.deepEqual(Object.keys(threads[0]!).sort(), ['id', 'slug'])
  })
})

describe('API file models', () => {
  it('format objectid fields take 24 hex digits, optional fields are those required does not list, unknown body keys are refused', async () => {
    const { openEmbedded } = await import('@fastify-mongo-crud/embedded')
    const db = await openEmbedded()
    const app = (await buildApiApp(parseApiFile(JSON.stringify(API)), db, { fastify: { logger: false } })) as unknown as App
    try {
      const spec = (await app.inject('/openapi.json')).json()
      const post = spec.components.schemas.Post
      assert.deepEqual(post.required, ['slug', 'title', 'author'])
      assert.equal(post.properties.author.pattern, '^[0-9a-fA-F]{24}$')
      assert.equal(post.additionalProperties, false)
      const bad = await app.inject({ method: 'POST', url: '/threads/ffffffffffffffffffffffff/comments', payload: { text: 'x', extra: 1 } })
      assert.equal(bad.statusCode, 422)
      assert.deepEqual(bad.json().detail[0].loc, ['body', 'extra'])
    } finally {
      await app.close()
      await db.close()
    }
  })
})
