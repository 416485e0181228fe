import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, expectErrorShape, expectRefused } from './fixtures.ts'

/** `{ $and: [{ $and: [ … { name: 'alice' } … ] }] }`, `levels` logical levels deep. */
function nestedAnd(levels: number, op: '$and' | '$or' | '$nor' = '$and'): unknown {
  let filter: unknown = { name: 'alice' }
  for (let i = 0; i < levels; i += 1) filter = { [op]: [filter] }
  return filter
}

/** `{ name: { $not: { $not: … { $eq: 'alice' } } } }`. */
function nestedNot(levels: number): unknown {
  let condition: unknown = { $eq: 'alice' }
  for (let i = 0; i < levels; i += 1) condition = { $not: condition }
  return { name: condition }
}

/** A value nested `levels` objects deep, under a record field that accepts anything. */
function nestedValue(levels: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < levels; i += 1) value = { a: value }
  return { meta: value }
}

function nestedArray(levels: number): unknown {
  let value: unknown = 'member'
  for (let i = 0; i < levels; i += 1) value = [value]
  return { tags: value }
}

const strings = (count: number) => Array.from({ length: count }, (_, i) => `v${i}`)

describeEachStore('limits hold with nothing configured', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob'), account('carol')])
  })
  after(() => t.close())

  const list = (filter: unknown, extra: Record<string, string | number> = {}) =>
    t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter, extra)}` })
  const page = (params: Record<string, string | number>) => t.app.inject({ method: 'GET', url: `/accounts${queryString(params)}` })

  describe('$in and friends', () => {
    for (const op of ['$in', '$nin', '$all']) {
      it(`answers 422 naming the limit of 1000 for a 10,000-element ${op}`, async () => {
        expectRefused(await list({ name: { [op]: strings(10_000) } }), '1000')
      })
    }

    it('answers 422 for a 1001-element $in', async () => {
      expectRefused(await list({ name: { $in: strings(1001) } }), '1000')
    })

    it('accepts a $in of exactly the default maxIn (1000) values', async () => {
      const res = await list({ name: { $in: [...strings(999), 'alice'] } })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(
        res.json().map((doc: { name: string }) => doc.name),
        ['alice'],
      )
    })
  })

  describe('nesting', () => {
    for (const op of ['$and', '$or', '$nor'] as const) {
      it(`answers 422 naming the limit of 10 levels for 50 levels of ${op}`, async () => {
        expectRefused(await list(nestedAnd(50, op)), '10')
      })
    }

    it('answers 422 for 1000 levels of $and without a stack overflow', async () => {
      expectRefused(await list(nestedAnd(1000)), '10')
    })

    it('answers 422 for 50 levels of $not', async () => {
      expectRefused(await list(nestedNot(50)), '10')
    })

    it('answers 422 for a value object nested 50 levels deep', async () => {
      expectRefused(await list(nestedValue(50)), '10')
    })

    it('answers 422 for an array literal nested 50 levels deep', async () => {
      expectRefused(await list(nestedArray(50)))
    })

    // The literal check (fields a client may name inside a value) runs before the values are read:
    // it must stop at the depth limit too, not recurse through thousands of levels.
    // Spelled as text: JSON.stringify itself overflows the stack on values this deep.
    const listRaw = (filters: string) => t.app.inject({ method: 'GET', url: `/accounts${queryString({ filters })}` })

    it('answers 422 naming the limit for a value object nested 7000 levels deep', async () => {
      expectRefused(await listRaw(`{"meta":${'{"a":'.repeat(7000)}1${'}'.repeat(7001)}`), '10')
    })

    it('answers 422 naming the limit for an array literal nested 7000 levels deep', async () => {
      expectRefused(await listRaw(`{"tags":${'['.repeat(7000)}"member"${']'.repeat(7000)}}`), '10')
      expectRefused(await listRaw(`{"meta":{"$in":[${'['.repeat(7000)}1${']'.repeat(7000)}]}}`), '10')
    })

    it('answers 422 for 50 levels of $elemMatch and $and', async () => {
      let inner: unknown = { note: 'joined' }
      for (let i = 0; i < 50; i += 1) inner = { $and: [inner] }
      expectRefused(await list({ history: { $elemMatch: inner } }), '10')
    })

    it('accepts a few levels of nesting', async () => {
      const res = await list(nestedAnd(5))
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().length, 1)
    })
  })

  describe('node count', () => {
    it('answers 422 naming the limit of 500 nodes for a 600-branch $or', async () => {
      const branches = Array.from({ length: 600 }, (_, i) => ({ name: `n${i}` }))
      expectRefused(await list({ $or: branches }), '500')
    })

    it('answers 422 for 600 sibling fields', async () => {
      const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`meta.k${i}`, i]))
      expectRefused(await list(wide), '500')
    })
  })

  describe('regex', () => {
    it('answers 422 naming the limit of 256 characters for a 257-character $regex', async () => {
      expectRefused(await list({ name: { $regex: 'a'.repeat(257) } }), '256')
    })

    it('accepts a 256-character $regex', async () => {
      const res = await list({ name: { $regex: 'b'.repeat(256) } })
      assert.equal(res.statusCode, 200, res.body)
    })

    for (const options of ['g', 'u', 'y', 'd', 'ig', 'ii', 'e', '$']) {
      it(`answers 422 for $options ${JSON.stringify(options)}`, async () => {
        expectRefused(await list({ name: { $regex: '^a', $options: options } }), '$options')
      })
    }

    it('answers 422 for $options that is not a string', async () => {
      expectRefused(await list({ name: { $regex: '^a', $options: 1 } }))
      expectRefused(await list({ name: { $regex: '^a', $options: ['i'] } }))
    })

    it('answers 422 for $options without $regex', async () => {
      expectRefused(await list({ name: { $options: 'i' } }))
    })

    it('answers 422 for an invalid regular expression', async () => {
      expectRefused(await list({ name: { $regex: '(' } }))
      expectRefused(await list({ name: { $regex: '[z-a]' } }))
    })

    it('accepts $options made of i m s x', async () => {
      const res = await list({ name: { $regex: '^ A L', $options: 'imsx' } })
      assert.equal(res.statusCode, 200, res.body)
    })
  })

  describe('skip and limit without ceilings', () => {
    for (const value of ['1e9', '1000000000', '1e15', '9007199254740991']) {
      it(`answers skip=${value} with an empty array`, async () => {
        const res = await page({ skip: value })
        if (res.statusCode === 200) assert.deepEqual(res.json(), [])
        else expectErrorShape(res)
      })

      it(`answers limit=${value} with every document (or a clean 422)`, async () => {
        const res = await page({ limit: value })
        if (res.statusCode === 200) assert.equal(res.json().length, 3)
        else expectRefused(res, 'limit')
      })
    }

    for (const value of ['1e30', '9007199254740993', 'Infinity', '-0', '0x10', '1e-9']) {
      it(`never answers 500 for skip=${value} or limit=${value}`, async () => {
        for (const params of [{ skip: value }, { limit: value }, { skip: value, limit: value }]) {
          const res = await page(params)
          if (res.statusCode === 200) assert.ok(Array.isArray(res.json()), res.body)
          else expectErrorShape(res)
        }
      })
    }
  })
})

describeEachStore('configured limits', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, {
      ...accountsRouter,
      defaultLimit: 2,
      maxLimit: 100,
      maxSkip: 1000,
      maxTimeMS: 5000,
      filterLimits: { maxDepth: 4, maxNodes: 30, maxIn: 5, maxRegexLength: 8, regexOptions: 'i' },
    })
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob'), account('carol')])
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter)}` })
  const page = (params: Record<string, string | number>) => t.app.inject({ method: 'GET', url: `/accounts${queryString(params)}` })

  it('answers 422 naming skip for skip=1e9 above maxSkip', async () => {
    expectRefused(await page({ skip: '1e9' }), 'skip')
  })

  it('answers 422 naming limit for limit=1e9 above maxLimit', async () => {
    expectRefused(await page({ limit: '1e9' }), 'limit')
  })

  it('accepts skip and limit at their ceilings', async () => {
    assert.deepEqual(await getJson(t.app, `/accounts${queryString({ skip: 1000, limit: 100 })}`), [])
  })

  it('applies defaultLimit when the client sends no limit', async () => {
    assert.equal((await getJson(t.app, '/accounts')).length, 2)
  })

  it('answers 422 naming maxIn for a 6-element $in', async () => {
    expectRefused(await list({ name: { $in: strings(6) } }), '5')
    assert.equal((await list({ name: { $in: ['alice', 'bob', 'x', 'y', 'z'] } })).statusCode, 200)
  })

  it('answers 422 naming maxDepth for 5 levels of $and', async () => {
    expectRefused(await list(nestedAnd(5)), '4')
  })

  it('answers 422 naming maxNodes for a 31-branch $or', async () => {
    const branches = Array.from({ length: 31 }, (_, i) => ({ name: `n${i}` }))
    expectRefused(await list({ $or: branches }), '30')
  })

  it('answers 422 naming maxRegexLength for a 9-character $regex', async () => {
    expectRefused(await list({ name: { $regex: 'abcdefghi' } }), '8')
  })

  it('answers 422 for a regex option outside regexOptions', async () => {
    expectRefused(await list({ name: { $regex: '^a', $options: 'm' } }), '$options')
    assert.equal((await list({ name: { $regex: '^A', $options: 'i' } })).statusCode, 200)
  })

  it('still answers reads and writes with maxTimeMS set', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/accounts', payload: account('dave') })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id
    assert.equal((await t.app.inject({ method: 'GET', url: `/accounts/${id}` })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/accounts/${id}`, payload: { age: 1 } })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/accounts/${id}` })).statusCode, 204)
  })
})
