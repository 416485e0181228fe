import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { createDoc, getJson, type Json, seedDocs } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'
import { account, accountsRouter, expectPrototypeClean } from './fixtures.ts'

/**
 * One key check for every place a client names a path: prototype keys (`__proto__`, `constructor`,
 * `prototype`), BSON type tags (`_bsontype`), empty and `$`-prefixed segments are refused with a 422
 * naming the parameter, even below an open `Type.Record` field where any other name is accepted.
 * Query parsing does not depend on the store: one store mode is enough.
 */
const FORBIDDEN = ['constructor', '__proto__', 'prototype', '_bsontype']

const Item = MongoModel('Item', { label: Type.String(), meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())) })
const Child = MongoModel('Child', { ownerId: ObjectIdField(), meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())) })

describe(`client paths: forbidden keys [${storeModes[0]!.name}]`, () => {
  let t: TestApp
  let parent: Json
  before(async () => {
    t = await buildApp(storeModes[0]!, {
      ...accountsRouter,
      lookups: [new CRUDLookup({ model: Child, collectionName: 'children', prefix: 'children', localField: '_id', foreignField: 'ownerId' })],
      embeds: [new CRUDEmbed({ model: Item, embedName: 'items' })],
    })
    ;[parent] = await seedDocs(t.app, '/accounts', [account('alice'), account('bob')])
    await createDoc(t.app, `/accounts/${parent.id}/children`, { meta: { plan: 'a' } })
    await createDoc(t.app, `/accounts/${parent.id}/items`, { label: 'x', meta: { plan: 'a' } })
  })
  after(() => {
    expectPrototypeClean()
    return t.close()
  })

  const get = (url: string) => t.app.inject({ method: 'GET', url })
  const lists = () => ['/accounts', `/accounts/${parent.id}/children`, `/accounts/${parent.id}/items`]

  describe('sort_by', () => {
    for (const key of FORBIDDEN) {
      it(`answers 422 (not 500) for sort_by=meta.${key} on a Type.Record field, on every list`, async () => {
        for (const url of lists()) {
          expectDetail(await get(`${url}${queryString({ sort_by: `meta.${key}` })}`), 422, `sort_by: key "${key}" is not allowed`)
        }
      })
    }

    it(`answers 422 for a forbidden key at the top level and deeper below the record`, async () => {
      expectDetail(await get(`/accounts${queryString({ sort_by: 'constructor' })}`), 422, 'sort_by: key "constructor" is not allowed')
      expectDetail(await get(`/accounts${queryString({ sort_by: 'meta.a.__proto__.b' })}`), 422, 'sort_by: key "__proto__" is not allowed')
    })

    it('answers 422 for empty and $-prefixed segments below the record', async () => {
      for (const path of ['meta..plan', 'meta.', 'meta.$where', 'meta.$']) {
        expectDetail(await get(`/accounts${queryString({ sort_by: path })}`), 422, `sort_by: "${path}" is not a valid field path`)
      }
    })

    it('still sorts below the record by any other name', async () => {
      assert.equal((await getJson(t.app, `/accounts${queryString({ sort_by: 'meta.plan' })}`)).length, 2)
      assert.equal((await getJson(t.app, `/accounts/${parent.id}/items${queryString({ sort_by: 'meta.plan' })}`)).length, 1)
    })
  })

  describe('filters', () => {
    for (const key of FORBIDDEN) {
      it(`answers 422 for the path meta.${key}, on every list`, async () => {
        for (const url of lists()) {
          expectDetail(await get(`${url}${filtersQuery({ [`meta.${key}`]: 'x' })}`), 422, `filters: key "${key}" is not allowed`)
        }
      })
    }

    it('answers 422 for empty and $-prefixed segments below the record', async () => {
      for (const path of ['meta..plan', 'meta.$where']) {
        expectDetail(await get(`/accounts${filtersQuery({ [path]: 'x' })}`), 422, `filters: "${path}" is not a valid field path`)
      }
    })
  })

  describe('fields=', () => {
    for (const key of FORBIDDEN) {
      it(`answers 422 for fields=${key}, on the list, GET one and the children`, async () => {
        for (const url of ['/accounts', `/accounts/${parent.id}`, `/accounts/${parent.id}/children`]) {
          expectDetail(await get(`${url}${queryString({ fields: `id,${key}` })}`), 422, `fields: key "${key}" is not allowed`)
        }
      })
    }

    it('answers 422 for fields naming a path below the record', async () => {
      expectDetail(await get(`/accounts${queryString({ fields: 'meta.constructor' })}`), 422, 'fields: key "constructor" is not allowed')
      expectDetail(await get(`/accounts${queryString({ fields: '$where' })}`), 422, 'fields: "$where" is not a valid field path')
    })
  })
})
