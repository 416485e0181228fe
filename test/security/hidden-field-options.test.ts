import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { SetupError } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type RouterOptions, type TestApp } from '../harness/app.ts'
import { seedDocs } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'
import { Account, account, accountsRouter, expectNoSecret } from './fixtures.ts'

/**
 * A field the output model hides (`password`, `profile.secret`, `history.token`, `extra`) is never one
 * clients may filter, sort or group on: an option that lists one is refused at registration, and by
 * default such a field is out of reach on every route that takes field names (docs/security.md).
 */
const HIDDEN = /is hidden by the output model/

/** Registration's refusal: a SetupError whose message matches `message`. */
async function refused(options: Partial<RouterOptions>, message: RegExp): Promise<void> {
  await assert.rejects(buildApp(storeModes[0]!, { ...accountsRouter, ...options } as RouterOptions), (error: Error) => {
    assert.ok(error instanceof SetupError, String(error))
    assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
    assert.match(error.message, message)
    assert.match(error.message, HIDDEN)
    return true
  })
}

describe(`registration refuses a hidden field in filterable, sortable and defaultSort [${storeModes[0]!.name}]`, () => {
  it("filterable: ['name', 'password'] names the option, its position and the field", async () => {
    await refused({ filterable: ['name', 'password'] }, /^CRUDRouter: 'filterable\[1\]' names 'password', which is hidden by the output model/)
  })

  it("sortable: ['password']", async () => {
    await refused({ sortable: ['password'] }, /^CRUDRouter: 'sortable\[0\]' names 'password', which is hidden by the output model/)
  })

  it("defaultSort: { field: 'password' }, with and without sortable", async () => {
    await refused({ defaultSort: { field: 'password' } }, /^CRUDRouter: 'defaultSort.field' "password" is hidden by the output model/)
    await refused({ sortable: ['name'], defaultSort: { field: 'password', direction: -1 } }, /^CRUDRouter: 'defaultSort.field' "password" is hidden by the output model/)
  })

  it('a hidden sub-field of a shown field (profile.secret), a field under a hidden array item (history.token), a hidden open field (extra.key)', async () => {
    await refused({ filterable: ['profile.city', 'profile.secret'] }, /^CRUDRouter: 'filterable\[1\]' names 'profile.secret', which is hidden by the output model/)
    await refused({ sortable: ['history.token'] }, /^CRUDRouter: 'sortable\[0\]' names 'history.token', which is hidden by the output model/)
    await refused({ filterable: ['extra.key'] }, /^CRUDRouter: 'filterable\[0\]' names 'extra.key', which is hidden by the output model/)
    await refused({ defaultSort: { field: 'profile.secret' } }, /^CRUDRouter: 'defaultSort.field' "profile.secret" is hidden by the output model/)
  })

  it('the fields the output model shows are still accepted, and without an output model every field of the model', async () => {
    const shown = await buildApp(storeModes[0]!, { ...accountsRouter, filterable: ['id', 'name', 'profile.city', 'history.at'], sortable: ['age', 'profile.city'], defaultSort: { field: 'age' } })
    await shown.close()
    const { modelOut: _, ...withoutOut } = accountsRouter
    const all = await buildApp(storeModes[0]!, { ...withoutOut, model: Account, filterable: ['password'], sortable: ['password'], defaultSort: { field: 'password' } })
    await all.close()
  })
})

describeEachStore('a hidden field is never filterable, sortable or groupable, with the default lists or explicit ones', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter, { ...accountsRouter, prefix: '/picked', filterable: ['name', 'profile.city'], sortable: ['name'] })
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob'), account('zoe')])
  })
  after(() => t.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  for (const prefix of ['/accounts', '/picked']) {
    for (const path of ['password', 'profile.secret', 'history.token', 'extra.key']) {
      it(`${prefix}: filters on ${path} is a 4xx, and tells nothing`, async () => {
        for (const url of [`${prefix}${filtersQuery({ [path]: { $regex: '^z' } })}`, `${prefix}/_groups${filtersQuery({ [path]: { $regex: '^S' } }, { by: 'name' })}`]) {
          const res = await get(url)
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${url}: ${res.statusCode} ${res.body}`)
          assert.match(res.json().detail, new RegExp(`field "${path}" is not filterable`))
          expectNoSecret(res)
        }
      })

      it(`${prefix}: sort_by=${path} and _groups?by=${path} are 4xx`, async () => {
        const sorted = await get(`${prefix}${queryString({ sort_by: path })}`)
        assert.equal(sorted.statusCode, 422, sorted.body)
        assert.equal(sorted.json().detail, `sort_by: field "${path}" is not sortable`)
        const grouped = await get(`${prefix}/_groups${queryString({ by: path })}`)
        assert.equal(grouped.statusCode, 422, grouped.body)
        assert.match(grouped.json().detail, new RegExp(`^by: field "${path}" (is not groupable|holds a list)`))
        const measured = await get(`${prefix}/_groups${queryString({ by: 'name', metrics: `min:${path}` })}`)
        assert.ok(measured.statusCode >= 400 && measured.statusCode < 500, measured.body)
        expectNoSecret(grouped)
        expectNoSecret(measured)
      })
    }
  }

  it('the change feed refuses a filter on a hidden field as the list does', async () => {
    const res = await get(`/accounts/_events${filtersQuery({ password: { $regex: '^z' } })}`)
    assert.equal(res.statusCode, 422, res.body)
    assert.equal(res.json().detail, 'filters: field "password" is not filterable')
  })
})
