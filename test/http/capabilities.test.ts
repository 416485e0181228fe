import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, it } from 'node:test'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  CRUDEmbed,
  CRUDLookup,
  CRUDRouter,
  createApp,
  crudService,
  HTTPException,
  MongoModel,
  MongoModelOut,
  ObjectIdField,
  type ServiceGroupsQuery,
  type ServiceListQuery,
  Type,
} from 'fastify-mongo-crud'
import type { App } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import type { Json } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore } from '../harness/stores.ts'

/**
 * Walks the table of docs/capabilities.md: every capability on every kind of resource (the router's
 * collection, a lookup's children, an embed's items, the service API). A "yes" cell is checked to hold,
 * a "no" cell to be absent as the page says. The table is read from the page itself, so the page and
 * this test cannot drift apart, and a capability added to one kind shows up as a gap in the others.
 */
const KINDS = ['collection', 'lookup', 'embed', 'service'] as const
type KindName = (typeof KINDS)[number]

function readTable(): Map<string, Record<KindName, boolean>> {
  const text = readFileSync(new URL('../../docs/capabilities.md', import.meta.url), 'utf8')
  const table = new Map<string, Record<KindName, boolean>>()
  for (const line of text.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim())
    if (cells.length !== KINDS.length + 1 || !cells.slice(1).every((cell) => cell === 'yes' || cell === 'no')) continue
    table.set(cells[0]!, Object.fromEntries(KINDS.map((kind, i) => [kind, cells[i + 1] === 'yes'])) as Record<KindName, boolean>)
  }
  return table
}

const Thing = MongoModel('CapThing', { name: Type.String(), rank: Type.Integer(), secret: Type.Optional(Type.String()), owner: Type.String() })
const ThingOut = MongoModelOut('CapThingOut', { name: Type.String(), rank: Type.Integer(), owner: Type.String() })
const Kid = MongoModel('CapKid', { name: Type.String(), rank: Type.Integer(), secret: Type.Optional(Type.String()), parentId: ObjectIdField() })
const KidOut = MongoModelOut('CapKidOut', { name: Type.String(), rank: Type.Integer(), parentId: ObjectIdField() })
const Item = MongoModel('CapItem', { name: Type.String(), rank: Type.Integer(), secret: Type.Optional(Type.String()) })
const ItemOut = MongoModelOut('CapItemOut', { name: Type.String(), rank: Type.Integer() })

/** Refuses a request that carries `header` (a dependency). */
const refuseOn = (header: string) => async (request: FastifyRequest) => {
  if (request.headers[header] !== undefined) throw new HTTPException(403, 'Refused')
}

/** One kind's URLs, for a caller of its own: what a check creates is seen by that check alone. */
interface Place {
  readonly kind: KindName
  readonly headers: Record<string, string>
  readonly list: string
  one(id: string): string
  /** The fields a created document or item takes besides name, rank and secret. */
  readonly extra: Json
}

let users = 0
async function freshPlace(app: App, kind: KindName): Promise<Place> {
  const headers = { 'x-user': `user${++users}` }
  if (kind === 'collection' || kind === 'service') {
    const list = kind === 'collection' ? '/things' : '/svc/things'
    return { kind, headers, list, one: (id) => `${list}/${id}`, extra: {} }
  }
  const parent = await app.inject({ method: 'POST', url: '/things', payload: { name: 'parent', rank: 0 }, headers })
  assert.equal(parent.statusCode, 201, parent.body)
  const list = `/things/${parent.json().id}/${kind === 'lookup' ? 'kids' : 'items'}`
  return { kind, headers, list, one: (id) => `${list}/${id}`, extra: {} }
}

async function seed(app: App, place: Place, ranks: number[]): Promise<Json[]> {
  const created: Json[] = []
  for (const rank of ranks) {
    const res = await app.inject({ method: 'POST', url: place.list, payload: { name: `n${rank}`, rank, secret: 's', ...place.extra }, headers: place.headers })
    assert.equal(res.statusCode, 201, `${place.list}: ${res.body}`)
    created.push(res.json())
  }
  return created
}

type Check = (app: App, place: Place) => Promise<void>

/** For each capability: what "yes" means, and what "no" means (the absence the page describes). */
const CHECKS: Record<string, { yes: Check, no: Check }> = {
  count: {
    async yes(app, place) {
      await seed(app, place, [1, 2, 3])
      const res = await app.inject({ url: place.list, headers: { ...place.headers, prefer: 'count=exact' } })
      assert.equal(res.headers['x-total-count'], '3', res.body)
    },
    async no(app, place) {
      await seed(app, place, [1])
      const res = await app.inject({ url: place.list, headers: { ...place.headers, prefer: 'count=exact' } })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['x-total-count'], undefined)
    },
  },
  fields: {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const list = await app.inject({ url: `${place.list}?fields=name`, headers: place.headers })
      assert.equal(list.statusCode, 200, list.body)
      assert.deepEqual(list.json().map((d: Json) => Object.keys(d).sort()), [['id', 'name']])
      const one = await app.inject({ url: `${place.one(doc.id)}?fields=rank`, headers: place.headers })
      assert.deepEqual(Object.keys(one.json()).sort(), ['id', 'rank'])
      const hidden = await app.inject({ url: `${place.list}?fields=secret`, headers: place.headers })
      assert.equal(hidden.statusCode, 422, hidden.body)
    },
    async no(app, place) {
      await seed(app, place, [1])
      const list = await app.inject({ url: `${place.list}?fields=name`, headers: place.headers })
      assert.ok(Object.keys(list.json()[0]).includes('rank'), list.body)
    },
  },
  cursor: {
    async yes(app, place) {
      // Two documents share a rank: the next page continues after (rank, id), so neither is lost or repeated.
      const seeded = await seed(app, place, [2, 1, 2, 3])
      const first = await app.inject({ url: `${place.list}?sort_by=rank&limit=2`, headers: place.headers })
      assert.deepEqual(first.json().map((d: Json) => d.rank), [1, 2])
      const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1]
      assert.ok(next !== undefined, `no Link: ${first.headers.link}`)
      const second = await app.inject({ url: next, headers: place.headers })
      assert.deepEqual(second.json().map((d: Json) => d.rank), [2, 3])
      const twos = [first.json()[1].id, second.json()[0].id].sort()
      assert.deepEqual(twos, [seeded[0].id, seeded[2].id].sort())
      assert.equal(second.headers.link, undefined)
      const elsewhere = await freshPlace(app, place.kind)
      const replayed = await app.inject({ url: next.replace(place.list, elsewhere.list), headers: elsewhere.headers })
      assert.equal(replayed.statusCode, 400, 'a cursor is bound to its list')
    },
    async no(app, place) {
      await seed(app, place, [2, 1, 3])
      const first = await app.inject({ url: `${place.list}?sort_by=rank&limit=2`, headers: place.headers })
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(first.headers.link, undefined)
    },
  },
  etag: {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const read = await app.inject({ url: place.one(doc.id), headers: place.headers })
      const tag = String(read.headers.etag)
      assert.match(tag, /^"/)
      assert.equal((await app.inject({ url: place.one(doc.id), headers: { ...place.headers, 'if-none-match': tag } })).statusCode, 304)
      const stale = await app.inject({ method: 'PATCH', url: place.one(doc.id), payload: { rank: 5 }, headers: { ...place.headers, 'if-match': '"stale"' } })
      assert.equal(stale.statusCode, 412, stale.body)
      const fresh = await app.inject({ method: 'PATCH', url: place.one(doc.id), payload: { rank: 5 }, headers: { ...place.headers, 'if-match': tag } })
      assert.equal(fresh.statusCode, 200, fresh.body)
    },
    async no(app, place) {
      const [doc] = await seed(app, place, [1])
      const read = await app.inject({ url: place.one(doc.id), headers: place.headers })
      assert.equal(read.headers.etag, undefined)
    },
  },
  location: {
    async yes(app, place) {
      const res = await app.inject({ method: 'POST', url: place.list, payload: { name: 'n', rank: 1, ...place.extra }, headers: place.headers })
      assert.equal(res.statusCode, 201, res.body)
      const location = String(res.headers.location)
      assert.ok(location.endsWith(`/${res.json().id}`), location)
      assert.equal((await app.inject({ url: location, headers: place.headers })).json().id, res.json().id)
    },
    async no(app, place) {
      const res = await app.inject({ method: 'POST', url: place.list, payload: { name: 'n', rank: 1, ...place.extra }, headers: place.headers })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.headers.location, undefined)
    },
  },
  'default-sort': {
    async yes(app, place) {
      await seed(app, place, [1, 3, 2])
      const res = await app.inject({ url: place.list, headers: place.headers })
      assert.deepEqual(res.json().map((d: Json) => d.rank), [3, 2, 1])
    },
    async no(app, place) {
      await seed(app, place, [1, 3, 2])
      const res = await app.inject({ url: place.list, headers: place.headers })
      assert.notDeepEqual(res.json().map((d: Json) => d.rank), [3, 2, 1])
    },
  },
  limits: {
    async yes(app, place) {
      const res = await app.inject({ url: `${place.list}?limit=51`, headers: place.headers })
      assert.equal(res.statusCode, 422, res.body)
      assert.equal(res.json().detail, 'limit must be at most 50')
    },
    async no() {
      assert.fail('every kind pages within the limits')
    },
  },
  'scope-reads': {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const stranger = { 'x-user': 'stranger' }
      assert.equal((await app.inject({ url: place.one(doc.id), headers: stranger })).statusCode, 400)
      const list = await app.inject({ url: place.list, headers: stranger })
      assert.ok(list.statusCode === 400 || (list.statusCode === 200 && list.json().length === 0), list.body)
    },
    async no() {
      assert.fail('every kind reads within the scope')
    },
  },
  'scope-writes': {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ method: 'PATCH', url: place.one(doc.id), payload: { owner: 'someone-else' }, headers: place.headers })
      assert.equal(res.statusCode, 403, res.body)
    },
    async no(app, place) {
      // No write of this kind can move a document out of the scope, so none documents the 403 for it.
      const spec = (await app.inject({ url: '/openapi.json' })).json()
      const path = `/things/{id}/${place.kind === 'lookup' ? 'kids' : 'items'}/{${place.kind === 'lookup' ? 'child_id' : 'embed_id'}}`
      assert.ok(spec.paths[path] !== undefined, Object.keys(spec.paths).join(', '))
      assert.ok(!JSON.stringify(spec.paths[path].patch.responses).includes("caller's scope"))
    },
  },
  disable: {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ method: 'DELETE', url: place.one(doc.id), headers: place.headers })
      assert.equal(res.statusCode, 404, res.body)
    },
    async no(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ method: 'DELETE', url: place.one(doc.id), headers: place.headers })
      assert.equal(res.statusCode, 204, res.body)
    },
  },
  dependencies: {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ url: place.one(doc.id), headers: { ...place.headers, 'x-deny': '1' } })
      assert.equal(res.statusCode, 403, res.body)
    },
    async no(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ url: place.one(doc.id), headers: { ...place.headers, 'x-deny': '1' } })
      assert.equal(res.statusCode, 200, res.body)
    },
  },
  groups: {
    async yes(app, place) {
      await seed(app, place, [2, 1, 2])
      const res = await app.inject({ url: `${place.list}/_groups?by=rank&metrics=count,sum:rank`, headers: place.headers })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), [{ rank: 1, count: 1, sum_rank: 1 }, { rank: 2, count: 2, sum_rank: 4 }])
      const hidden = await app.inject({ url: `${place.list}/_groups?by=secret`, headers: place.headers })
      const unknown = await app.inject({ url: `${place.list}/_groups?by=nothing`, headers: place.headers })
      assert.equal(hidden.statusCode, 422, hidden.body)
      assert.equal(hidden.body.replace('secret', 'nothing'), unknown.body)
    },
    async no() {
      assert.fail('every kind groups its list')
    },
  },
  batch: {
    async yes(app, place) {
      const ok = await app.inject({ method: 'POST', url: `${place.list}/_batch`, payload: { operations: [{ op: 'create', body: { name: 'a', rank: 1, ...place.extra } }] }, headers: place.headers })
      assert.equal(ok.statusCode, 200, ok.body)
      assert.deepEqual(ok.json().results.map((r: Json) => r.status), [201])
      const before = (await app.inject({ url: place.list, headers: place.headers })).json().length
      const operations = [{ op: 'create', body: { name: 'b', rank: 2, ...place.extra } }, { op: 'create', body: { name: 5, rank: 1 } }]
      const failed = await app.inject({ method: 'POST', url: `${place.list}/_batch`, payload: { operations }, headers: place.headers })
      assert.deepEqual([failed.statusCode, failed.json().index], [422, 1], failed.body)
      assert.equal((await app.inject({ url: place.list, headers: place.headers })).json().length, before)
    },
    async no(app, place) {
      const res = await app.inject({ method: 'POST', url: `${place.list}/_batch`, payload: { operations: [{ op: 'create', body: { name: 'a', rank: 1 } }] }, headers: place.headers })
      assert.equal(res.statusCode, 404, res.body)
    },
  },
  'patch-media-types': {
    async yes(app, place) {
      const [doc] = await seed(app, place, [1])
      const patch = (type: string, payload: unknown) => app.inject({ method: 'PATCH', url: place.one(doc.id), payload: JSON.stringify(payload), headers: { ...place.headers, 'content-type': type } })
      const merged = await patch('application/merge-patch+json', { rank: 7 })
      assert.deepEqual([merged.statusCode, merged.json().rank], [200, 7], merged.body)
      const tested = await patch('application/json-patch+json', [{ op: 'test', path: '/rank', value: 1 }])
      assert.equal(tested.statusCode, 409, tested.body)
      const hidden = await patch('application/json-patch+json', [{ op: 'replace', path: '/secret', value: 'x' }])
      assert.equal(hidden.statusCode, 422, hidden.body)
    },
    async no(app, place) {
      const [doc] = await seed(app, place, [1])
      const res = await app.inject({ method: 'PATCH', url: place.one(doc.id), payload: JSON.stringify({ rank: 7 }), headers: { ...place.headers, 'content-type': 'application/merge-patch+json' } })
      assert.equal(res.statusCode, 415, res.body)
    },
  },
  events: {
    async yes(app, place) {
      // An event stream never ends: it is read over real HTTP, as a browser's EventSource reads it.
      if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' })
      const feed = await EventStreamClient.open(app, `${place.list}/_events`, place.headers)
      assert.equal(feed.status, 200)
      const [doc] = await seed(app, place, [4])
      const [event] = await feed.take(1)
      assert.deepEqual([event!.event, event!.data.id, event!.data.document.rank], ['create', doc.id, 4])
      assert.doesNotMatch(feed.text, /secret/)
      feed.close()
    },
    async no(app, place) {
      const res = await app.inject({ url: `${place.list}/_events`, headers: place.headers })
      assert.notEqual(res.statusCode, 200, res.body)
    },
  },
  'typed-bodies': {
    async yes(app, place) {
      const res = await app.inject({ method: 'POST', url: place.list, payload: { name: 5, rank: 1 }, headers: place.headers })
      assert.equal(res.statusCode, 422, res.body)
      assert.ok(res.json().detail.some((issue: Json) => issue.loc.join('.') === 'body.name'), res.body)
    },
    async no() {
      assert.fail('every kind validates its bodies')
    },
  },
}

async function buildCapabilitiesApp(store: OpenedStore): Promise<App> {
  const app = await createApp({ title: 'capabilities', version: '1.0.0', fastify: { logger: false } })
  // Every kind disables its DELETE and guards its GET one with `x-deny`; the parent guards its own with another header.
  await app.register(CRUDRouter, {
    model: Thing,
    modelOut: ThingOut,
    db: store.db,
    collectionName: 'cap_things',
    prefix: '/things',
    filterDependency: (request) => ({ owner: String(request.headers['x-user']) }),
    filtersUnderScope: 'and',
    defaultSort: { field: 'rank', direction: -1 },
    maxLimit: 50,
    disableDeleteOne: true,
    dependenciesGetOne: [refuseOn('x-deny')],
    lookups: [
      new CRUDLookup({
        model: Kid,
        modelOut: KidOut,
        collectionName: 'cap_kids',
        prefix: 'kids',
        localField: '_id',
        foreignField: 'parentId',
        disableDeleteOne: true,
        dependenciesGetOne: [refuseOn('x-deny')],
      }),
    ],
    embeds: [new CRUDEmbed({ model: Item, modelOut: ItemOut, embedName: 'items', disableDeleteOne: true, dependenciesGetOne: [refuseOn('x-deny')] })],
  })
  // The service API behind routes of the app's own, so the same checks reach it over HTTP.
  const service = crudService(app, 'capThings', { model: Thing, modelOut: ThingOut })
  const id = (request: FastifyRequest) => (request.params as { id: string }).id
  app.get('/svc/things', (request) => service.list({ request, query: request.query as ServiceListQuery }))
  app.post('/svc/things', async (request, reply: FastifyReply) => reply.code(201).send(await service.create({ request, body: request.body as never })))
  app.get('/svc/things/_groups', (request) => service.groups({ request, query: request.query as ServiceGroupsQuery }))
  app.get('/svc/things/:id', (request) => service.get({ request, id: id(request), ...(request.query as { fields?: string }) }))
  app.patch('/svc/things/:id', (request) => service.update({ request, id: id(request), body: request.body as never }))
  app.delete('/svc/things/:id', async (request, reply: FastifyReply) => {
    await service.delete({ request, id: id(request) })
    return reply.code(204).send()
  })
  await app.ready()
  return app
}

const table = readTable()

it('docs/capabilities.md has a row for every capability this test knows, and no other', () => {
  assert.deepEqual([...table.keys()].sort(), Object.keys(CHECKS).sort())
})

describeEachStore('every capability on every kind, as docs/capabilities.md says', (mode) => {
  let store: OpenedStore
  let app: App
  before(async () => {
    store = await mode.open()
    app = await buildCapabilitiesApp(store)
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  for (const [capability, cells] of table) {
    for (const kind of KINDS) {
      const offered = cells[kind]
      it(`${capability} on ${kind}: ${offered ? 'yes' : 'no'}`, async () => {
        const check = CHECKS[capability]
        assert.ok(check !== undefined, `no check for ${capability}`)
        await (offered ? check.yes : check.no)(app, await freshPlace(app, kind))
      })
    }
  }
})
