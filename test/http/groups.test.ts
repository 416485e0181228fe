import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { EmbeddedDb } from '@fastify-mongo-crud/embedded'
import type { FastifyRequest } from 'fastify'
import { CRUDEmbed, CRUDLookup, crudService, type DriverDb, HTTPException, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { type Db, Decimal128, Long } from 'mongodb'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { createDoc, getJson, type Json, seedDocs } from '../harness/seed.ts'
import { seededRandom } from '../harness/seeded-random.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

/**
 * GET <prefix>/_groups (docs/groups.md) on every store: counts, sums, averages, minima and maxima
 * checked against the same computation done here over the seeded documents, with filters, under a
 * scope, on lookup children and embedded items; hidden fields refused as unknown ones are.
 */
const Person = MongoModel('GroupPerson', {
  name: Type.String(),
  city: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  role: Type.String(),
  age: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  score: Type.Number(),
  secret: Type.String(),
  owner: Type.String(),
  address: Type.Optional(Type.Object({ zip: Type.String() })),
  tags: Type.Optional(Type.Array(Type.String())),
  managerId: Type.Optional(ObjectIdField()),
})
const { secret: _hidden, ...shown } = Person.properties
const PersonOut = MongoModelOut('GroupPersonOut', { ...shown, id: Type.String() })
const Pet = MongoModel('GroupPet', { name: Type.String(), kind: Type.String(), weight: Type.Integer(), ownerId: ObjectIdField() })
const Visit = MongoModel('GroupVisit', { place: Type.String(), minutes: Type.Integer() })
/** A field of no declared type may hold integers: its sums are kept exact too. */
const Blob = MongoModel('GroupBlob', { kind: Type.String(), n: Type.Any() })

const CITIES = ['Lyon', 'Paris', 'Rome', null, undefined]
const ROLES = ['admin', 'member']
const OWNERS = ['alice', 'bob']

/** Documents of every kind of value a group meets: missing and null keys, null and missing numbers. */
function people(count: number): Json[] {
  const random = seededRandom(42)
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!
  return Array.from({ length: count }, (_, i) => {
    const city = pick(CITIES)
    const age = random() < 0.15 ? null : random() < 0.1 ? undefined : Math.floor(random() * 80)
    return {
      name: `p${i}`,
      ...(city === undefined ? {} : { city }),
      role: pick(ROLES),
      ...(age === undefined ? {} : { age }),
      score: Math.round(random() * 1000) / 8,
      secret: `s${i}`,
      owner: pick(OWNERS),
      address: { zip: pick(['69000', '75000']) },
      tags: ['t'],
    }
  })
}

type Metric = 'count' | `${'sum' | 'avg' | 'min' | 'max'}:${string}`

/** The groups a grouping must answer, computed here: one pass over the documents, keys sorted as BSON sorts them (null first). */
function expected(docs: Json[], by: string[], metrics: Metric[]): Json[] {
  const groups = new Map<string, Json[]>()
  const valueAt = (doc: Json, path: string) => path.split('.').reduce((value, key) => (value === undefined || value === null ? undefined : value[key]), doc) ?? null
  for (const doc of docs) {
    const key = JSON.stringify(by.map((path) => valueAt(doc, path)))
    groups.set(key, [...(groups.get(key) ?? []), doc])
  }
  const rows = [...groups].map(([key, members]) => {
    const row: Json = Object.fromEntries(by.map((path, i) => [path, JSON.parse(key)[i]]))
    for (const metric of metrics) {
      if (metric === 'count') {
        row.count = members.length
        continue
      }
      const [op, path] = metric.split(':') as [string, string]
      const numbers = members.map((doc) => valueAt(doc, path)).filter((value): value is number => typeof value === 'number')
      const sum = numbers.reduce((total, value) => total + value, 0)
      row[`${op}_${path}`] = op === 'sum' ? sum : numbers.length === 0 ? null : op === 'avg' ? sum / numbers.length : op === 'min' ? Math.min(...numbers) : Math.max(...numbers)
    }
    return row
  })
  const rank = (value: unknown) => (value === null ? '0' : `1${String(value)}`)
  return rows.sort((a, b) => {
    for (const path of by) {
      const [x, y] = [rank(a[path]), rank(b[path])]
      if (x !== y) return x < y ? -1 : 1
    }
    return 0
  })
}

/** Averages compared to the last bits a different order of additions may change. */
function assertGroups(actual: Json[], wanted: Json[]): void {
  assert.equal(actual.length, wanted.length, JSON.stringify(actual))
  actual.forEach((row, i) => {
    const want = wanted[i]
    assert.deepEqual(Object.keys(row).sort(), Object.keys(want).sort())
    for (const [key, value] of Object.entries(want)) {
      if (typeof value === 'number' && !Number.isInteger(value)) assert.ok(Math.abs(row[key] - value) < 1e-9, `${key}: ${row[key]} != ${value}`)
      else assert.deepEqual(row[key], value, `${key} of group ${i}: ${JSON.stringify(row)}`)
    }
  })
}

const groupsUrl = (base: string, params: Record<string, string | number>) => `${base}/_groups${queryString(params)}`

async function timeOutAlways(db: DriverDb, on: boolean): Promise<void> {
  const mode = on ? 'alwaysOn' : 'off'
  if (db instanceof EmbeddedDb) db.configureFailPoint('maxTimeAlwaysTimeOut', mode)
  else await (db as unknown as Db).admin().command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode })
}

describeEachStore('GET <prefix>/_groups', (mode) => {
  let t: TestApp
  let docs: Json[]
  let created: Json[]
  before(async () => {
    const byUser = async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) })
    t = await buildApp(
      mode,
      {
        model: Person,
        modelOut: PersonOut,
        collectionName: 'people',
        prefix: '/people',
        maxTimeMS: 60_000,
        lookups: [new CRUDLookup({ model: Pet, collectionName: 'pets', prefix: 'pets', localField: '_id', foreignField: 'ownerId' })],
        embeds: [new CRUDEmbed({ model: Visit, embedName: 'visits' })],
      },
      { model: Person, modelOut: PersonOut, collectionName: 'people', prefix: '/few', name: 'fewPeople', maxGroups: 3, maxSkip: 5 },
      { model: Blob, collectionName: 'blobs', prefix: '/blobs' },
      { model: Person, modelOut: PersonOut, collectionName: 'people', prefix: '/mine', name: 'myPeople', filterDependency: byUser, filtersUnderScope: 'and' },
      { model: Person, modelOut: PersonOut, collectionName: 'people', prefix: '/scoped', name: 'scopedPeople', filterDependency: byUser },
    )
    docs = people(60)
    created = await seedDocs(t.app, '/people', docs)
  })
  after(() => t.close())

  it('counts, sums, averages and bounds each group, ordered by the by field with null first', async () => {
    const metrics: Metric[] = ['count', 'sum:age', 'avg:age', 'min:age', 'max:age', 'sum:score']
    const answer = await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: metrics.join(',') }))
    assertGroups(answer, expected(docs, ['city'], metrics))
    // Missing and null cities are one group, answered as null.
    assert.equal(answer[0].city, null)
  })

  it('counts alone by default, and groups by the combination of several fields', async () => {
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'city' })), expected(docs, ['city'], ['count']))
    const answer = await getJson(t.app, groupsUrl('/people', { by: 'role,city', metrics: 'count,max:score' }))
    assertGroups(answer, expected(docs, ['role', 'city'], ['count', 'max:score']))
    assert.equal(answer.reduce((total: number, row: Json) => total + row.count, 0), docs.length)
  })

  it('groups by a nested field and by an ObjectId field (as hex)', async () => {
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'address.zip', metrics: 'count,sum:age' })), expected(docs, ['address.zip'], ['count', 'sum:age']))
    const manager = created[0].id
    const res = await t.app.inject({ method: 'PATCH', url: `/people/${created[1].id}`, payload: { managerId: manager } })
    assert.equal(res.statusCode, 200, res.body)
    const answer = await getJson(t.app, groupsUrl('/people', { by: 'managerId' }))
    assert.deepEqual(answer, [{ managerId: null, count: docs.length - 1 }, { managerId: manager, count: 1 }])
    await t.app.inject({ method: 'PATCH', url: `/people/${created[1].id}`, payload: { managerId: null } })
  })

  it('sums to 0, and averages and bounds to null, a group with no number', async () => {
    const noAge = JSON.stringify({ age: null })
    const answer = await getJson(t.app, groupsUrl('/people', { by: 'role', metrics: 'sum:age,avg:age,min:age,max:age', filters: noAge }))
    assert.ok(answer.length > 0)
    for (const group of answer) assert.deepEqual(group, { role: group.role, sum_age: 0, avg_age: null, min_age: null, max_age: null })
  })

  it('is offered by the service API, which takes by and metrics as arrays too', async () => {
    const request = { headers: {} } as unknown as FastifyRequest
    const answer = await crudService(t.app, 'people').groups({ request, query: { by: ['city'], metrics: ['count', 'sum:age'] } })
    assertGroups(answer, expected(docs, ['city'], ['count', 'sum:age']))
  })

  it('applies the list filter grammar before grouping', async () => {
    const filter = { age: { $gte: 30 }, role: 'member' }
    const answer = await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: 'count,avg:age', filters: JSON.stringify(filter) }))
    const matching = docs.filter((doc) => typeof doc.age === 'number' && doc.age >= 30 && doc.role === 'member')
    assertGroups(answer, expected(matching, ['city'], ['count', 'avg:age']))
    const bad = await t.app.inject(groupsUrl('/people', { by: 'city', filters: '{"age":{"$where":"1"}}' }))
    expectDetail(bad, 422, 'filters: operator $where is not allowed')
  })

  it('sorts by a metric or a by field, either way, and pages', async () => {
    const all = expected(docs, ['city'], ['count', 'sum:age'])
    const byCount = [...all].sort((a, b) => b.count - a.count || (a.city === null ? -1 : b.city === null ? 1 : a.city < b.city ? -1 : 1))
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: 'count,sum:age', sort_by: 'count', order_by: 'DESC' })), byCount)
    const bySum = [...all].sort((a, b) => a.sum_age - b.sum_age)
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: 'count,sum:age', sort_by: 'sum_age' })), bySum)
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: 'count,sum:age', sort_by: 'city', order_by: 'desc' })), [...all].reverse())
    assertGroups(await getJson(t.app, groupsUrl('/people', { by: 'city', metrics: 'count,sum:age', skip: 1, limit: 2 })), all.slice(1, 3))
    const wrong = await t.app.inject(groupsUrl('/people', { by: 'city', sort_by: 'age' }))
    expectDetail(wrong, 422, 'sort_by: "age" is neither a by field nor a metric of this request (city, count)')
  })

  it('groups only what the scope lets the caller see, and filters within it', async () => {
    const alices = docs.filter((doc) => doc.owner === 'alice')
    assertGroups(await getJson(t.app, groupsUrl('/mine', { by: 'city', metrics: 'count,sum:age' }), { 'x-user': 'alice' }), expected(alices, ['city'], ['count', 'sum:age']))
    const widen = JSON.stringify({ owner: 'bob' })
    assert.deepEqual(await getJson(t.app, groupsUrl('/mine', { by: 'city', filters: widen }), { 'x-user': 'alice' }), [])
    const admins = JSON.stringify({ role: 'admin' })
    const answer = await getJson(t.app, groupsUrl('/mine', { by: 'role', filters: admins }), { 'x-user': 'bob' })
    assert.deepEqual(answer, [{ role: 'admin', count: docs.filter((doc) => doc.owner === 'bob' && doc.role === 'admin').length }])
    // A router that ignores client filters under its scope ignores them here too.
    const ignored = await getJson(t.app, groupsUrl('/scoped', { by: 'owner', filters: widen }), { 'x-user': 'alice' })
    assert.deepEqual(ignored, [{ owner: 'alice', count: alices.length }])
  })

  it('refuses hidden and unknown fields with the same words, and fields that hold no single value', async () => {
    for (const parameter of ['by', 'metrics'] as const) {
      for (const field of ['secret', 'nothing']) {
        const res = await t.app.inject(groupsUrl('/people', parameter === 'by' ? { by: field } : { by: 'city', metrics: `max:${field}` }))
        expectDetail(res, 422, `${parameter}: field "${field}" is not groupable`)
      }
    }
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'address' })), 422, 'by: field "address" holds an object: name one of its fields')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'tags' })), 422, 'by: field "tags" holds a list, not one value')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'city', metrics: 'sum:name' })), 422, 'metrics: sum needs a number field, and "name" is not one')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'city', metrics: 'median:age' })), 422, 'metrics: "median:age" is not a metric: use count, sum:<field>, avg:<field>, min:<field> or max:<field>')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'city', metrics: 'count,count' })), 422, 'metrics: "count" is asked twice')
    expectDetail(await t.app.inject('/people/_groups'), 422, 'by must name the fields to group by, comma-separated (by=city,role) or repeated (by=city&by=role)')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: ' , ' })), 422, 'by: name at least one field to group by')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: '__proto__' })), 422, 'by: key "__proto__" is not allowed')
    const many = (count: number, item: (i: number) => string) => Array.from({ length: count }, (_, i) => item(i)).join(',')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: many(11, (i) => (i === 0 ? 'city' : `f${i}`)) })), 422, 'by: more than the limit of 10 fields')
    expectDetail(await t.app.inject(groupsUrl('/people', { by: 'city', metrics: many(21, (i) => `max:f${i}`) })), 422, 'metrics: more than the limit of 20 metrics')
    // A list repeated (`by=city&by=role`, as openapi-fetch sends an array) is one list: test/http/groups-list-parameters.test.ts.
    expectDetail(await t.app.inject('/people/_groups?by=city&by=city'), 422, 'by: "city" is named twice')
  })

  it('answers at most maxGroups groups: a limit above it, or more groups without a limit, is 422', async () => {
    assert.equal((await getJson(t.app, groupsUrl('/few', { by: 'role' }))).length, 2)
    expectDetail(
      await t.app.inject(groupsUrl('/few', { by: 'city' })),
      422,
      'More than 3 groups (maxGroups): narrow the filters, group by fewer fields, or page through them with skip and limit',
    )
    assert.equal((await getJson(t.app, groupsUrl('/few', { by: 'city', limit: 3 }))).length, 3)
    expectDetail(await t.app.inject(groupsUrl('/few', { by: 'city', limit: 4 })), 422, 'limit must be at most 3')
    expectDetail(await t.app.inject(groupsUrl('/few', { by: 'city', skip: 6, limit: 1 })), 422, 'skip must be at most 5')
  })

  it('groups the children of a lookup under their parent, and the items of an embed', async () => {
    const [ann, bea] = created
    const pets = [
      { name: 'rex', kind: 'dog', weight: 30 },
      { name: 'tom', kind: 'cat', weight: 4 },
      { name: 'max', kind: 'dog', weight: 20 },
    ]
    for (const pet of pets) await createDoc(t.app, `/people/${ann.id}/pets`, pet)
    await createDoc(t.app, `/people/${bea.id}/pets`, { name: 'zed', kind: 'dog', weight: 99 })
    assert.deepEqual(await getJson(t.app, groupsUrl(`/people/${ann.id}/pets`, { by: 'kind', metrics: 'count,sum:weight' })), [
      { kind: 'cat', count: 1, sum_weight: 4 },
      { kind: 'dog', count: 2, sum_weight: 50 },
    ])
    const heavy = JSON.stringify({ weight: { $gt: 10 } })
    assert.deepEqual(await getJson(t.app, groupsUrl(`/people/${ann.id}/pets`, { by: 'kind', filters: heavy })), [{ kind: 'dog', count: 2 }])
    for (const minutes of [10, 20, 5]) await createDoc(t.app, `/people/${ann.id}/visits`, { place: minutes > 5 ? 'park' : 'vet', minutes })
    assert.deepEqual(await getJson(t.app, groupsUrl(`/people/${ann.id}/visits`, { by: 'place', metrics: 'count,avg:minutes,max:minutes' })), [
      { place: 'park', count: 2, avg_minutes: 15, max_minutes: 20 },
      { place: 'vet', count: 1, avg_minutes: 5, max_minutes: 5 },
    ])
    assert.deepEqual(await getJson(t.app, groupsUrl(`/people/${bea.id}/visits`, { by: 'place' })), [])
    const missing = 'ffffffffffffffffffffffff'
    expectDetail(await t.app.inject(groupsUrl(`/people/${missing}/visits`, { by: 'place' })), 400, 'Document not found')
    expectDetail(await t.app.inject(groupsUrl(`/people/${missing}/pets`, { by: 'kind' })), 400, 'Document not found')
  })

  describe('limits of the work', () => {
    afterEach(() => timeOutAlways(t.store.db, false))

    it('answers 503 past maxTimeMS', async () => {
      await timeOutAlways(t.store.db, true)
      expectDetail(await t.app.inject(groupsUrl('/people', { by: 'city' })), 503, 'The query exceeded its time limit (maxTimeMS)')
    })

    it('keeps the sums of a field of no declared type exact too', async () => {
      for (const n of [2 ** 52, 2 ** 52]) await createDoc(t.app, '/blobs', { kind: 'big', n })
      expectDetail(await t.app.inject(groupsUrl('/blobs', { by: 'kind', metrics: 'sum:n' })), 422, `sum_n would exceed ${Number.MAX_SAFE_INTEGER} and lose precision: narrow the filters or group by more fields`)
      assert.deepEqual(await getJson(t.app, groupsUrl('/blobs', { by: 'kind', metrics: 'max:n' })), [{ kind: 'big', max_n: 2 ** 52 }])
    })

    it('answers the metrics of 64-bit integers stored through the driver as numbers, or 422 past 2^53', async () => {
      // Another client of the database stores Longs: the router never writes them.
      const blobs = (t.store.db as unknown as Db).collection('blobs')
      for (const n of [Long.fromString('9007199254740993'), Long.fromInt(1)]) await blobs.insertOne({ kind: 'huge', n })
      for (const n of [Long.fromInt(2022), Long.fromInt(1)]) await blobs.insertOne({ kind: 'year', n })
      const filters = (kind: string) => JSON.stringify({ kind })
      for (const metric of ['sum', 'max', 'min', 'avg']) {
        const year = await getJson(t.app, groupsUrl('/blobs', { by: 'kind', metrics: `${metric}:n`, filters: filters('year') }))
        assert.deepEqual(year, [{ kind: 'year', [`${metric}_n`]: { sum: 2023, max: 2022, min: 1, avg: 1011.5 }[metric] }])
      }
      for (const metric of ['sum', 'max']) {
        const huge = await t.app.inject(groupsUrl('/blobs', { by: 'kind', metrics: `${metric}:n`, filters: filters('huge') }))
        expectDetail(huge, 422, `${metric}_n would exceed ${Number.MAX_SAFE_INTEGER} and lose precision: narrow the filters or group by more fields`)
      }
      assert.deepEqual(await getJson(t.app, groupsUrl('/blobs', { by: 'kind', metrics: 'min:n,count', filters: filters('huge') })), [{ kind: 'huge', min_n: 1, count: 2 }])
      // Decimals: answered as numbers when a double keeps their digits, refused when it does not.
      for (const n of ['0.1', '0.2']) await blobs.insertOne({ kind: 'cents', n: Decimal128.fromString(n) })
      await blobs.insertOne({ kind: 'precise', n: Decimal128.fromString('1.2345678901234567890123') })
      assert.deepEqual(await getJson(t.app, groupsUrl('/blobs', { by: 'kind', metrics: 'sum:n,max:n', filters: filters('cents') })), [{ kind: 'cents', sum_n: 0.3, max_n: 0.2 }])
      expectDetail(await t.app.inject(groupsUrl('/blobs', { by: 'kind', metrics: 'max:n', filters: filters('precise') })), 422, `max_n would exceed ${Number.MAX_SAFE_INTEGER} and lose precision: narrow the filters or group by more fields`)
    })

    it('keeps sums of integers exact, or refuses them past 2^53', async () => {
      const big = 2 ** 52
      const parent = await createDoc(t.app, '/people', { name: 'big', role: 'x', score: 0, secret: 's', owner: 'carl' })
      for (const weight of [big, big - 1]) await createDoc(t.app, `/people/${parent.id}/pets`, { name: 'p', kind: 'whale', weight })
      assert.deepEqual(await getJson(t.app, groupsUrl(`/people/${parent.id}/pets`, { by: 'kind', metrics: 'sum:weight' })), [{ kind: 'whale', sum_weight: 2 * big - 1 }])
      await createDoc(t.app, `/people/${parent.id}/pets`, { name: 'p', kind: 'whale', weight: 2 })
      expectDetail(
        await t.app.inject(groupsUrl(`/people/${parent.id}/pets`, { by: 'kind', metrics: 'sum:weight' })),
        422,
        `sum_weight would exceed ${Number.MAX_SAFE_INTEGER} and lose precision: narrow the filters or group by more fields`,
      )
    })
  })
})

describe('the _groups route in OpenAPI, behind the list\'s guards', () => {
  let t: TestApp
  let spec: Json
  before(async () => {
    const refuse = async (request: FastifyRequest) => {
      if (request.headers['x-deny'] !== undefined) throw new HTTPException(403, 'Refused')
    }
    t = await buildApp(
      storeModes[0]!,
      {
        model: Person,
        modelOut: PersonOut,
        collectionName: 'people',
        prefix: '/people',
        maxGroups: 50,
        dependenciesGetAll: [refuse],
        lookups: [new CRUDLookup({ model: Pet, collectionName: 'pets', prefix: 'pets', localField: '_id', foreignField: 'ownerId' })],
        embeds: [new CRUDEmbed({ model: Visit, embedName: 'visits', disableGetAll: true })],
      },
      { model: Person, collectionName: 'people', prefix: '/unlisted', name: 'unlisted', disableGetAll: true },
    )
    spec = (await t.app.inject('/openapi.json')).json()
  })
  after(() => t.close())

  it('is an operation of its own, named after the router', () => {
    assert.equal(spec.paths['/people/_groups'].get.operationId, 'groupPeople')
    assert.equal(spec.paths['/people/_groups'].get.summary, 'Group people')
    assert.equal(spec.paths['/people/{id}/pets/_groups'].get.operationId, 'groupPersonPets')
  })

  it('types each key of the answer: the by fields (or null) and the metrics of them, never a hidden field', () => {
    const items = spec.paths['/people/_groups'].get.responses['200'].content['application/json'].schema.items
    const { properties } = items
    assert.deepEqual(properties.city, { anyOf: [{ type: 'string' }, { type: 'null' }] })
    assert.deepEqual(properties.age, { anyOf: [{ type: 'integer' }, { type: 'null' }] })
    assert.equal(properties.count.type, 'integer')
    assert.equal(properties.sum_age.type, 'integer')
    assert.equal(properties.sum_score.type, 'number')
    assert.deepEqual(properties.avg_score.anyOf, [{ type: 'number' }, { type: 'null' }])
    assert.deepEqual(properties['address.zip'], { anyOf: [{ type: 'string' }, { type: 'null' }] })
    assert.ok(properties.min_name !== undefined && properties.sum_name === undefined)
    assert.ok(!JSON.stringify(Object.keys(properties)).includes('secret'))
    assert.ok(!Object.keys(properties).some((key) => key.startsWith('tags')))
    assert.equal(items.additionalProperties, false)
    const parameters = spec.paths['/people/_groups'].get.parameters
    const limit = parameters.find((parameter: Json) => parameter.name === 'limit')
    assert.equal(limit.schema.maximum, 50)
    assert.equal(parameters.find((parameter: Json) => parameter.name === 'by').required, true)
  })

  it("runs the list's dependencies, and goes where the list goes", async () => {
    assert.equal((await t.app.inject({ url: '/people/_groups?by=city', headers: { 'x-deny': '1' } })).statusCode, 403)
    assert.equal((await t.app.inject('/people/_groups?by=city')).statusCode, 200)
    assert.equal(spec.paths['/unlisted/_groups'], undefined)
    assert.equal(spec.paths['/people/{id}/visits/_groups'], undefined)
    assert.ok(spec.paths['/people/{id}/pets/_groups'] !== undefined)
  })
})

describe('an API file', () => {
  it('sets maxGroups under limits, and serves _groups on its routers', async () => {
    const { buildApiApp, parseApiFile } = await import('fastify-mongo-crud/api-file')
    const { openEmbedded } = await import('@fastify-mongo-crud/embedded')
    const api = {
      limits: { maxGroups: 2 },
      models: { Thing: { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'] } },
      routers: { things: { prefix: '/things', collection: 'things', model: 'Thing' } },
    }
    const db = await openEmbedded()
    const app = await buildApiApp(parseApiFile(JSON.stringify(api)), db, { fastify: { logger: false } })
    try {
      for (const kind of ['a', 'b', 'b', 'c']) assert.equal((await app.inject({ method: 'POST', url: '/things', payload: { kind } })).statusCode, 201)
      assert.deepEqual((await app.inject('/things/_groups?by=kind&limit=2&sort_by=count&order_by=desc')).json(), [{ kind: 'b', count: 2 }, { kind: 'a', count: 1 }])
      assert.equal((await app.inject('/things/_groups?by=kind')).json().detail, 'More than 2 groups (maxGroups): narrow the filters, group by fewer fields, or page through them with skip and limit')
    } finally {
      await app.close()
      await db.close()
    }
  })
})
