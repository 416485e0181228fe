/**
 * `by` and `metrics` of `<prefix>/_groups` (docs/groups.md, docs/clients.md): lists, sent comma-separated
 * (`by=city,role`) or repeated (`by=city&by=role`, what openapi-fetch sends for an array), and documented
 * in OpenAPI as arrays of the names they take (`style: form`, `explode: false`), so that a typed client
 * refuses a field that cannot be grouped or measured.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { seedDocs } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

const Person = MongoModel('ListParamPerson', {
  name: Type.String(),
  city: Type.Optional(Type.String()),
  role: Type.String(),
  age: Type.Optional(Type.Integer()),
  address: Type.Optional(Type.Object({ zip: Type.String() })),
})
const Open = MongoModel('ListParamOpen', { kind: Type.String(), extra: Type.Optional(Type.Object({}, { additionalProperties: true })) })

type Parameter = { name: string, required?: boolean, style?: string, explode?: boolean, schema: Record<string, unknown> }

describe('_groups: by and metrics as lists', () => {
  let t: TestApp
  let parameters: Parameter[]
  let openParameters: Parameter[]
  before(async () => {
    t = await buildApp(storeModes[0]!, { model: Person, collectionName: 'people', prefix: '/people' }, { model: Open, collectionName: 'open', prefix: '/open' })
    await seedDocs(t.app, '/people', [
      { name: 'a', city: 'Lyon', role: 'admin', age: 30 },
      { name: 'b', city: 'Lyon', role: 'member', age: 40 },
      { name: 'c', city: 'Rome', role: 'member', age: 50 },
      { name: 'd', city: 'Lyon', role: 'member', age: 20 },
    ])
    const spec = (await t.app.inject('/openapi.json')).json()
    parameters = spec.paths['/people/_groups'].get.parameters
    openParameters = spec.paths['/open/_groups'].get.parameters
  })
  after(() => t.close())

  it('takes them comma-separated or repeated, with the same answer', async () => {
    const comma = await t.app.inject('/people/_groups?by=city,role&metrics=count,sum:age')
    assert.equal(comma.statusCode, 200, comma.body)
    assert.deepEqual(comma.json(), [
      { city: 'Lyon', role: 'admin', count: 1, sum_age: 30 },
      { city: 'Lyon', role: 'member', count: 2, sum_age: 60 },
      { city: 'Rome', role: 'member', count: 1, sum_age: 50 },
    ])
    for (const url of ['/people/_groups?by=city&by=role&metrics=count&metrics=sum:age', '/people/_groups?by=city,role&metrics=count&metrics=sum:age']) {
      const repeated = await t.app.inject(url)
      assert.equal(repeated.statusCode, 200, repeated.body)
      assert.deepEqual(repeated.json(), comma.json(), url)
    }
  })

  it('checks each item as before: an unknown field is 422, a field named twice too', async () => {
    assert.equal((await t.app.inject('/people/_groups?by=city&by=citty')).statusCode, 422)
    assert.equal((await t.app.inject('/people/_groups?by=city&by=city')).statusCode, 422)
    assert.equal((await t.app.inject('/people/_groups?by=city&metrics=count&metrics=sum:name')).statusCode, 422)
  })

  it('documents by as a required array of the groupable fields, sent as by=city,role', () => {
    const by = parameters.find((parameter) => parameter.name === 'by')!
    assert.equal(by.required, true)
    assert.equal(by.style, 'form')
    assert.equal(by.explode, false)
    assert.deepEqual(by.schema['type'], 'array')
    const items = by.schema['items'] as { type: string, enum: string[] }
    assert.equal(items.type, 'string')
    assert.deepEqual([...items.enum].sort(), ['address.zip', 'age', 'city', 'id', 'name', 'role'])
    assert.equal(by.schema['maxItems'], 10)
  })

  it('documents metrics as an array of count and the metrics each field allows (sum and avg of numbers only)', () => {
    const metrics = parameters.find((parameter) => parameter.name === 'metrics')!
    assert.equal(metrics.required, false)
    assert.equal(metrics.schema['type'], 'array')
    const names = (metrics.schema['items'] as { enum: string[] }).enum
    for (const name of ['count', 'sum:age', 'avg:age', 'min:age', 'max:age', 'min:name', 'max:address.zip']) assert.ok(names.includes(name), name)
    for (const name of ['sum:name', 'avg:city']) assert.ok(!names.includes(name), name)
    assert.equal(metrics.schema['maxItems'], 20)
  })

  it('documents lists of strings where an open object leaves field names unlisted', () => {
    const by = openParameters.find((parameter) => parameter.name === 'by')!
    assert.deepEqual(by.schema['items'], { type: 'string' })
  })
})
