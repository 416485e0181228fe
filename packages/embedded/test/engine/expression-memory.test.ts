import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { MongoInvalidArgumentError, MongoServerError } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir } from './engines.ts'

/**
 * The values an aggregation's expressions and accumulators build are bounded: past
 * `expressionMemoryLimitBytes` (100 MB by default, MongoDB's), the operation fails with MongoDB's
 * ExceededMemoryLimit (146), a catchable error, instead of building an array V8 cannot hold (which
 * aborted the process: `$range: [0, 4e8]`). A lowered limit keeps these tests small and fast.
 */

const LIMIT = 100_000
/** Well past any limit: 2^40 elements if nothing stopped it. */
const LEVELS = 40

const exceeded = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 146)
  assert.equal(error.codeName, 'ExceededMemoryLimit')
  assert.match(error.message, pattern)
  return true
}

/** `{ $let: { vars: { v: <previous> }, in: <twice $$v> } }`, `levels` deep: the result doubles at each level. */
function doubling(seed: unknown, levels: number, twice: (v: string) => unknown): unknown {
  let expr = seed
  for (let i = 0; i < levels; i++) expr = { $let: { vars: { v: expr }, in: twice('$$v') } }
  return expr
}

for (const kind of ENGINES) {
  describe(`expression memory limits (${kind})`, () => {
    let db: EmbeddedDb
    let lowered: EmbeddedDb
    let dir: string | undefined
    const one = (pipeline: Document[], engine = lowered) => engine.aggregate([{ $documents: [{ s: 'ab' }] }, ...pipeline]).toArray()
    before(async () => {
      if (kind === 'lmdb') dir = await makeTempDir('expression-memory')
      db = await openEmbedded(dir === undefined ? {} : { path: dir })
      lowered = await openEmbedded({ expressionMemoryLimitBytes: LIMIT })
      const rows = Array.from({ length: 2000 }, (_, i) => ({ _id: i, group: i % 2, pad: `${i}`.padEnd(100, '.') }))
      for (const engine of [db, lowered]) await Promise.all(rows.map((row) => engine.collection('rows').insertOne({ ...row })))
      // Few and large: mingo's $graphLookup hashes every document it reaches, slowly.
      await Promise.all(Array.from({ length: 200 }, (_, i) => lowered.collection('nodes').insertOne({ _id: i, group: 1, pad: 'x'.repeat(600) })))
    })
    after(async () => {
      await db.close()
      await lowered.close()
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it("fails the issue's $range of 4e8 with ExceededMemoryLimit before building it, under the default limit", async () => {
      await assert.rejects(
        db.aggregate([{ $documents: [{}] }, { $project: { a: { $range: [0, 4e8] } } }]).toArray(),
        exceeded(/^\$range would use too much memory \(6400000000 bytes\) and cannot spill to disk\. Memory limit: 104857600 bytes$/),
      )
      // The same in a collection's pipeline, a find's $expr and an update pipeline (the default limit).
      const huge = { $range: [0, 4e8] }
      await assert.rejects(db.collection('rows').aggregate([{ $limit: 1 }, { $project: { a: huge } }]).toArray(), exceeded(/^\$range/))
      await assert.rejects(db.collection('rows').find({ $expr: { $gt: [{ $size: huge }, 0] } }).toArray(), exceeded(/^\$range/))
      await assert.rejects(db.collection('rows').updateOne({ _id: 0 }, [{ $set: { a: huge } }]), exceeded(/^\$range/))
      assert.equal((await db.collection('rows').findOne({ _id: 0 }))?.['a'], undefined)
    })

    it('fails $concatArrays doubling through nested $let at the level that passes the limit', async () => {
      const expr = doubling([1], LEVELS, (v) => ({ $concatArrays: [v, v] }))
      await assert.rejects(one([{ $project: { a: expr } }]), exceeded(/^\$concatArrays would use too much memory \(\d+ bytes\) and cannot spill to disk\. Memory limit: 100000 bytes$/))
      const [small] = await one([{ $project: { _id: 0, a: doubling([1], 3, (v) => ({ $concatArrays: [v, v] })) } }])
      assert.deepEqual(small, { a: [1, 1, 1, 1, 1, 1, 1, 1] })
    })

    it('fails $push in $group over many documents past the limit, and keeps what fits', async () => {
      await assert.rejects(
        lowered.collection('rows').aggregate([{ $group: { _id: '$group', all: { $push: '$$ROOT' } } }]).toArray(),
        exceeded(/^\$push used too much memory and cannot spill to disk\. Memory limit: 100000 bytes$/),
      )
      const ids = await lowered.collection('rows').aggregate([{ $group: { _id: '$group', ids: { $push: '$_id' } } }, { $sort: { _id: 1 } }]).toArray()
      assert.deepEqual(ids.map((g) => (g['ids'] as number[]).length), [1000, 1000])
    })

    it('fails $addToSet past the limit, counting each distinct value once', async () => {
      await assert.rejects(
        lowered.collection('rows').aggregate([{ $group: { _id: null, pads: { $addToSet: '$pad' } } }]).toArray(),
        exceeded(/^\$addToSet used too much memory and cannot spill to disk\. Memory limit: 100000 bytes$/),
      )
      const [set] = await lowered.collection('rows').aggregate([{ $group: { _id: null, groups: { $addToSet: '$group' } } }]).toArray()
      assert.deepEqual((set!['groups'] as number[]).sort(), [0, 1])
    })

    it('fails $reduce building a growing string or array', async () => {
      const input = { $range: [0, 1000] }
      await assert.rejects(one([{ $project: { a: { $reduce: { input, initialValue: 'x', in: { $concat: ['$$value', '$$value'] } } } } }]), exceeded(/^\$concat would use/))
      await assert.rejects(one([{ $project: { a: { $reduce: { input, initialValue: [0], in: { $concatArrays: ['$$value', '$$value'] } } } } }]), exceeded(/^\$concatArrays would use/))
      // No bounded operator in `in`: the value itself, a tree that doubles at each step.
      await assert.rejects(one([{ $project: { a: { $reduce: { input, initialValue: 'x', in: ['$$value', '$$value'] } } } }]), exceeded(/^\$reduce would use/))
    })

    it('fails $concat of strings past the limit, and any string past 16 MiB whatever the limit', async () => {
      await assert.rejects(one([{ $project: { a: doubling('$s', LEVELS, (v) => ({ $concat: [v, v] })) } }]), exceeded(/^\$concat would use too much memory \(131072 bytes\)/))
      await assert.rejects(one([{ $project: { a: doubling('$s', LEVELS, (v) => ({ $concat: [v, v] })) } }], db), exceeded(/^\$concat would use too much memory \(33554432 bytes\) and cannot spill to disk\. Memory limit: 16777216 bytes$/))
    })

    it('fails $map, $zip, $setUnion, $split and $replaceAll whose result passes the limit', async () => {
      const range = (n: number) => ({ $range: [0, n] })
      const cases: Array<[string, unknown]> = [
        ['$map', { $map: { input: range(100), in: range(100) } }],
        ['$zip', { $let: { vars: { r: range(2000) }, in: { $zip: { inputs: ['$$r', '$$r', '$$r'] } } } }],
        ['$setUnion', { $setUnion: [range(4000), { $range: [4000, 8000] }] }],
        ['$split', { $split: [{ $reduce: { input: range(3000), initialValue: '', in: { $concat: ['$$value', ',,,'] } } }, ','] }],
        ['$replaceAll', { $replaceAll: { input: { $reduce: { input: range(1000), initialValue: '', in: { $concat: ['$$value', 'x'] } } }, find: 'x', replacement: 'y'.repeat(200) } }],
      ]
      for (const [operator, expr] of cases) await assert.rejects(one([{ $project: { a: expr } }]), exceeded(new RegExp(`^\\${operator} would use too much memory`)))
      // One input passed twice is counted once: the union is that input.
      const [union] = await one([{ $project: { _id: 0, n: { $size: { $let: { vars: { r: range(4000) }, in: { $setUnion: ['$$r', '$$r'] } } } } } }])
      assert.deepEqual(union, { n: 4000 })
    })

    it('answers as mingo does under the limit', async () => {
      const [doc] = await one([
        {
          $project: {
            _id: 0,
            range: { $range: [10, 0, -4] },
            map: { $map: { input: [1, 2], as: 'n', in: { $concat: ['$s', { $toString: '$$n' }] } } },
            reduce: { $reduce: { input: [1, 2, 3], initialValue: { sum: 0 }, in: { sum: { $add: ['$$value.sum', '$$this'] } } } },
            zip: { $zip: { inputs: [[1, 2], ['a']], useLongestLength: true, defaults: [0, 'z'] } },
            union: { $setUnion: [[1, 2], [2, 3]] },
            split: { $split: ['a,b,,c', ','] },
            replaced: { $replaceAll: { input: 'a.b.c', find: '.', replacement: '--' } },
            one: { $replaceOne: { input: 'a.b.c', find: '.', replacement: '--' } },
            dollar: { $concatArrays: [['x'], { $literal: ['$s'] }] },
            cp: { $strLenCP: 'h\u00e9\u{1F600}' },
            bytes: { $strLenBytes: 'h\u00e9\u{1F600}' },
            sub: { $substrCP: ['h\u00e9\u{1F600}x', 1, 2] },
            rest: { $substrCP: ['abc', 1, -1] },
          },
        },
      ])
      assert.deepEqual(doc, {
        range: [10, 6, 2],
        map: ['ab1', 'ab2'],
        reduce: { sum: 6 },
        zip: [[1, 'a'], [2, 'z']],
        union: [1, 2, 3],
        split: ['a', 'b', '', 'c'],
        replaced: 'a--b--c',
        one: 'a--b.c',
        dollar: ['x', '$s'],
        cp: 3,
        bytes: 7,
        sub: '\u00e9\u{1F600}',
        rest: 'bc',
      })
    })

    it('fails a $densify that would generate more than 500000 documents with MongoDB\'s 5897900', async () => {
      const pipeline = [{ $documents: [{ n: 0 }, { n: 1e9 }] }, { $densify: { field: 'n', range: { step: 1, bounds: 'full' } } }, { $count: 'n' }]
      await assert.rejects(db.aggregate(pipeline).toArray(), { code: 5897900, message: /^Generated 500001 documents in \$densify, which is over the limit of 500000$/ })
      const few = await db.aggregate([{ $documents: [{ n: 0 }, { n: 4 }] }, { $densify: { field: 'n', range: { step: 1, bounds: 'full' } } }]).toArray()
      assert.deepEqual(few.map((d) => d['n']), [0, 1, 2, 3, 4])
    })

    it('fails $lookup, $graphLookup and $facet whose documents would pass the limit', async () => {
      const rows = lowered.collection('rows')
      await assert.rejects(rows.aggregate([{ $lookup: { from: 'rows', localField: 'group', foreignField: 'group', as: 'all' } }]).toArray(), {
        code: 4568,
        message: "Total size of documents in rows matching pipeline's $lookup stage exceeds 100000 bytes",
      })
      await assert.rejects(rows.aggregate([{ $lookup: { from: 'rows', pipeline: [], as: 'all' } }]).toArray(), { code: 4568 })
      const graph = { from: 'nodes', startWith: 1, connectFromField: 'group', connectToField: 'group', as: 'g' }
      await assert.rejects(rows.aggregate([{ $limit: 1 }, { $graphLookup: graph }]).toArray(), exceeded(/^\$graphLookup would use/))
      const facets = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, []]))
      await assert.rejects(rows.aggregate([{ $facet: facets }]).toArray(), { code: 4031700, message: /^document constructed by \$facet is at least \d+ bytes, which exceeds the limit of 100000 bytes$/ })
      const [counted] = await rows.aggregate([{ $lookup: { from: 'rows', localField: '_id', foreignField: '_id', as: 'self' } }, { $facet: { n: [{ $count: 'n' }] } }]).toArray()
      assert.deepEqual(counted, { n: [{ n: 2000 }] })
    })

    it('refuses, before walking it, a document that repeats one value 2^40 times', { timeout: 60_000 }, async () => {
      // Tiny in memory (each level holds two references to the one below), 2^40 values in BSON. (`$set`:
      // mingo's `$project` walks its output itself, see the README's list of what is not bounded.)
      const pipeline = [{ $set: { a: doubling('$s', LEVELS, (v) => [v, v]) } }]
      await assert.rejects(db.collection('rows').aggregate([{ $limit: 1 }, ...pipeline, { $out: 'copies' }]).toArray(), { code: 10334, codeName: 'BSONObjectTooLarge' })
      await assert.rejects(db.collection('rows').aggregate([{ $limit: 2 }, ...pipeline, { $sort: { _id: 1 } }]).toArray(), { code: 292 })
    })

    it('refuses an expressionMemoryLimitBytes that is not a positive integer or Infinity', async () => {
      for (const bad of [0, -1, 1.5, Number.NaN, '100']) {
        await assert.rejects(openEmbedded({ expressionMemoryLimitBytes: bad as number }), (error: unknown) => {
          assert.ok(error instanceof MongoInvalidArgumentError)
          assert.match(error.message, /^expressionMemoryLimitBytes must be a positive integer \(bytes\) or Infinity/)
          return true
        })
      }
    })
  })
}
