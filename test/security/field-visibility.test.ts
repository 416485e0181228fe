import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { Account, account, accountsRouter, expectNoSecret, expectRefused } from './fixtures.ts'

const names = (docs: Json[]) => docs.map((doc: { name: string }) => doc.name).sort()

/**
 * Hidden fields (a password hash) must not be reachable through filters or sort order: a filter that
 * matches or not, or an order that depends on the hidden value, is an oracle that enumerates it.
 */
describeEachStore('filters and sort_by: hidden fields are out of reach', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob'), account('carol')])
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter)}` })
  const sorted = (field: string) => t.app.inject({ method: 'GET', url: `/accounts${queryString({ sort_by: field })}` })

  describe('a hidden field in filters', () => {
    it('answers 422 \'filters: field "password" is not filterable\'', async () => {
      expectDetail(await list({ password: 'SECRET-pw-alice' }), 422, 'filters: field "password" is not filterable')
    })

    it('answers a non-existent field exactly as a hidden one', async () => {
      expectDetail(await list({ nosuch: 'x' }), 422, 'filters: field "nosuch" is not filterable')
      const hidden = (await list({ password: { $exists: true } })).json().detail
      const missing = (await list({ passwd: { $exists: true } })).json().detail
      assert.equal(String(missing).replace('passwd', 'password'), hidden)
    })

    const wrapped: Record<string, unknown> = {
      'under an operator': { password: { $regex: '^SECRET' } },
      'under $exists': { password: { $exists: true } },
      'inside $or': { $or: [{ name: 'alice' }, { password: { $regex: '^S' } }] },
      'inside $and': { $and: [{ password: { $gt: '' } }] },
      'inside $nor': { $nor: [{ password: { $regex: '^SECRET-pw-a' } }] },
      'inside $not': { password: { $not: { $regex: '^SECRET-pw-a' } } },
      'deep inside $nor / $or / $and': { $nor: [{ $or: [{ $and: [{ password: 'x' }] }] }] },
    }
    for (const [label, filter] of Object.entries(wrapped)) {
      it(`answers 422 naming password ${label}`, async () => {
        const res = await list(filter)
        expectRefused(res, 'password')
        expectNoSecret(res)
      })
    }

    for (const path of ['profile.secret', 'history.token', 'extra', 'extra.key', 'history.0.token']) {
      it(`answers 422 for the hidden dotted path ${path}`, async () => {
        const res = await list({ [path]: { $regex: '^SECRET' } })
        expectRefused(res, 'not filterable')
        expectNoSecret(res)
      })
    }

    it('answers 422 for a hidden field inside a document $elemMatch', async () => {
      expectRefused(await list({ history: { $elemMatch: { token: { $regex: '^SECRET' } } } }), 'token')
      expectRefused(await list({ history: { $elemMatch: { $or: [{ token: 'x' }] } } }), 'token')
    })

    it('answers 422 for a hidden field compared as a whole sub-document', async () => {
      // An equality on `profile` would compare `secret` too: the literal may only use visible keys.
      expectRefused(await list({ profile: { city: 'Oslo', secret: 'SECRET-profile-alice' } }))
    })

    const viaOperators: Record<string, unknown> = {
      $expr: { $expr: { $regexMatch: { input: '$password', regex: '^SECRET' } } },
      $jsonSchema: { $jsonSchema: { required: ['password'], properties: { password: { pattern: '^SECRET-pw-a' } } } },
      $text: { $text: { $search: 'SECRET' } },
      $where: { $where: "this.password[0] === 'S'" },
    }
    for (const [op, filter] of Object.entries(viaOperators)) {
      it(`answers 422 naming ${op} for a hidden field reached through ${op}`, async () => {
        expectRefused(await list(filter), op)
      })
    }
  })

  describe('a hidden field in sort_by', () => {
    it('answers 422 \'sort_by: field "password" is not sortable\'', async () => {
      expectDetail(await sorted('password'), 422, 'sort_by: field "password" is not sortable')
    })

    it('answers a non-existent field exactly as a hidden one', async () => {
      expectDetail(await sorted('passwd'), 422, 'sort_by: field "passwd" is not sortable')
    })

    for (const path of ['profile.secret', 'history.token', 'extra', 'extra.key']) {
      it(`answers 422 'sort_by: field "${path}" is not sortable'`, async () => {
        expectDetail(await sorted(path), 422, `sort_by: field "${path}" is not sortable`)
      })
    }

    it('refuses operator-shaped sort keys', async () => {
      expectRefused(await sorted('$where'))
      expectRefused(await sorted('name.$'))
    })
  })

  describe('visible fields keep working', () => {
    it('filters on visible fields, dotted paths and id', async () => {
      const [alice] = await getJson(t.app, `/accounts${filtersQuery({ name: 'alice' })}`)
      assert.deepEqual(names(await getJson(t.app, `/accounts${filtersQuery({ 'profile.city': 'Oslo', 'history.note': 'joined' })}`)), [
        'alice',
        'bob',
        'carol',
      ])
      assert.deepEqual(names(await getJson(t.app, `/accounts${filtersQuery({ id: alice.id })}`)), ['alice'])
    })

    it('sorts on visible fields and id', async () => {
      const byName = await getJson(t.app, `/accounts${queryString({ sort_by: 'name', order_by: 'DESC' })}`)
      assert.deepEqual(
        byName.map((doc: { name: string }) => doc.name),
        ['carol', 'bob', 'alice'],
      )
      assert.equal((await getJson(t.app, `/accounts${queryString({ sort_by: 'id' })}`)).length, 3)
    })
  })
})

describeEachStore('filterable and sortable override the defaults', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { ...accountsRouter, filterable: ['name', 'profile.city', 'id'], sortable: ['age'] },
      // without an output model every field of the model is filterable and sortable by default
      { model: Account, collectionName: 'accounts', prefix: '/raw-accounts' },
    )
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob')])
  })
  after(() => t.close())

  it('lets clients filter on the listed fields only', async () => {
    assert.deepEqual(names(await getJson(t.app, `/accounts${filtersQuery({ name: 'bob', 'profile.city': 'Oslo' })}`)), ['bob'])
    expectDetail(
      await t.app.inject({ method: 'GET', url: `/accounts${filtersQuery({ email: 'bob@example.com' })}` }),
      422,
      'filters: field "email" is not filterable',
    )
    expectDetail(
      await t.app.inject({ method: 'GET', url: `/accounts${filtersQuery({ 'profile.secret': 'x' })}` }),
      422,
      'filters: field "profile.secret" is not filterable',
    )
  })

  it('lets clients sort on the listed fields only', async () => {
    assert.equal((await getJson(t.app, `/accounts${queryString({ sort_by: 'age' })}`)).length, 2)
    expectDetail(
      await t.app.inject({ method: 'GET', url: `/accounts${queryString({ sort_by: 'name' })}` }),
      422,
      'sort_by: field "name" is not sortable',
    )
  })

  it('makes every model field filterable when there is no output model', async () => {
    assert.deepEqual(names(await getJson(t.app, `/raw-accounts${filtersQuery({ password: 'SECRET-pw-bob' })}`)), ['bob'])
  })
})

/** The same hidden sub-fields, with closed sub-objects in both models (no open-object fallback). */
const Closed = MongoModel('Closed', {
  name: Type.String(),
  profile: Type.Object({ city: Type.String(), secret: Type.String() }, { additionalProperties: false }),
  history: Type.Array(Type.Object({ note: Type.String(), token: Type.String() }, { additionalProperties: false })),
})
const ClosedOut = MongoModelOut('ClosedOut', {
  name: Type.String(),
  profile: Type.Object({ city: Type.String() }, { additionalProperties: false }),
  history: Type.Array(Type.Object({ note: Type.String() }, { additionalProperties: false })),
})

describeEachStore('hidden sub-fields of closed sub-objects are out of reach', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Closed, modelOut: ClosedOut, collectionName: 'closed', prefix: '/closed' })
    await seedDocs(t.app, '/closed', [
      { name: 'alice', profile: { city: 'Oslo', secret: 'SECRET-a' }, history: [{ note: 'joined', token: 'SECRET-ta' }] },
      { name: 'bob', profile: { city: 'Oslo', secret: 'SECRET-b' }, history: [{ note: 'joined', token: 'SECRET-tb' }] },
    ])
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/closed${filtersQuery(filter)}` })

  it('refuses the dotted paths', async () => {
    expectDetail(await list({ 'profile.secret': 'x' }), 422, 'filters: field "profile.secret" is not filterable')
    expectDetail(await list({ 'history.token': 'x' }), 422, 'filters: field "history.token" is not filterable')
  })

  it('refuses a hidden item field inside a document $elemMatch', async () => {
    expectRefused(await list({ history: { $elemMatch: { token: { $regex: '^SECRET-ta' } } } }), 'token')
    expectRefused(await list({ history: { $elemMatch: { note: 'joined', token: 'SECRET-tb' } } }), 'token')
  })

  it('refuses a whole sub-document literal that compares a hidden sub-field', async () => {
    expectRefused(await list({ profile: { city: 'Oslo', secret: 'SECRET-a' } }), 'secret')
    expectRefused(await list({ profile: { $eq: { city: 'Oslo', secret: 'SECRET-a' } } }), 'secret')
    expectRefused(await list({ history: { $in: [{ note: 'joined', token: 'SECRET-ta' }] } }), 'token')
  })
})
