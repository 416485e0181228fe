import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, expectNoSecret, expectRefused } from './fixtures.ts'

/**
 * Server-side JavaScript (`$where`, `$function`, `$accumulator`) and every other operator outside the
 * closed grammar, wherever it hides in the tree: peers have shipped fixes that only checked the top level.
 */
const SERVER_JS: Record<string, unknown> = {
  $where: "this.password.startsWith('S')",
  $function: { body: 'function () { return true }', args: [], lang: 'js' },
  $accumulator: { init: 'function () { return 0 }', accumulate: 'function () {}', lang: 'js' },
}

const OTHER_FORBIDDEN: Record<string, unknown> = {
  $expr: { $eq: ['$password', 'x'] },
  $jsonSchema: { properties: { password: { pattern: '^S' } } },
  $text: { $search: 'SECRET' },
  $comment: 'hi',
  $near: [0, 0],
  $nearSphere: [0, 0],
  $geoWithin: { $centerSphere: [[0, 0], 1] },
  $geoIntersects: { $geometry: { type: 'Point', coordinates: [0, 0] } },
  $bitsAllSet: 1,
  $bitsAnyClear: [0],
  $mod: [2, 0],
  $type: 'string',
  $sampleRate: 0.5,
  $set: { password: 'x' },
  $lookup: { from: 'accounts' },
  $unknownOperator: 1,
}

/** Where an operator can be placed, keyed by a readable label. */
const PLACEMENTS: Record<string, (op: string, payload: unknown) => unknown> = {
  'at the top level': (op, payload) => ({ [op]: payload }),
  'inside $and': (op, payload) => ({ $and: [{ name: 'a' }, { [op]: payload }] }),
  'inside $or': (op, payload) => ({ $or: [{ name: 'a' }, { [op]: payload }] }),
  'inside $nor': (op, payload) => ({ $nor: [{ [op]: payload }] }),
  'three logical levels down': (op, payload) => ({ $or: [{ $and: [{ $nor: [{ [op]: payload }] }] }] }),
  'on a field': (op, payload) => ({ name: { [op]: payload } }),
  'inside a field $not': (op, payload) => ({ name: { $not: { [op]: payload } } }),
  'inside a document $elemMatch': (op, payload) => ({ history: { $elemMatch: { note: 'joined', [op]: payload } } }),
  'inside a value $elemMatch': (op, payload) => ({ tags: { $elemMatch: { [op]: payload } } }),
  'inside $or inside $elemMatch': (op, payload) => ({ history: { $elemMatch: { $or: [{ [op]: payload }] } } }),
}

describeEachStore('filters: operators outside the grammar are refused', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob')])
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter)}` })

  for (const [op, payload] of Object.entries(SERVER_JS)) {
    describe(`server-side JavaScript: ${op}`, () => {
      it(`answers 422 "filters: operator ${op} is not allowed" at the top level`, async () => {
        expectDetail(await list({ [op]: payload }), 422, `filters: operator ${op} is not allowed`)
      })

      for (const [where, place] of Object.entries(PLACEMENTS)) {
        it(`answers 422 naming ${op} ${where}`, async () => {
          const res = await list(place(op, payload))
          expectRefused(res, op)
          expectNoSecret(res)
        })
      }
    })
  }

  for (const [op, payload] of Object.entries(OTHER_FORBIDDEN)) {
    it(`answers 422 naming ${op} at the top level and on a field`, async () => {
      expectRefused(await list({ [op]: payload }), op)
      expectRefused(await list({ name: { [op]: payload } }), op)
      expectRefused(await list({ $or: [{ [op]: payload }] }), op)
    })
  }

  it('refuses a forbidden operator even next to valid conditions', async () => {
    expectRefused(await list({ name: 'alice', age: { $gte: 1 }, $where: 'true' }), '$where')
  })

  it('refuses a forbidden operator inside a $regex operand object', async () => {
    expectRefused(await list({ name: { $regex: { $where: 'true' } } }))
  })

  it('still answers every allowlisted operator', async () => {
    const filter = {
      $and: [
        { name: { $in: ['alice', 'bob'], $nin: ['carol'], $ne: 'x', $exists: true } },
        { age: { $gt: 0, $gte: 1, $lt: 1000, $lte: 999 } },
        { $or: [{ email: { $eq: 'alice@example.com' } }, { email: { $regex: '^bob', $options: 'i' } }] },
        { $nor: [{ name: 'carol' }] },
        { name: { $not: { $regex: '^z' } } },
        { tags: { $all: ['member'], $size: 2 } },
        { history: { $elemMatch: { at: { $gte: 1 }, note: 'joined' } } },
      ],
    }
    const docs = await getJson(t.app, `/accounts${filtersQuery(filter)}`)
    assert.deepEqual(docs.map((doc: { name: string }) => doc.name).sort(), ['alice', 'bob'])
  })
})
