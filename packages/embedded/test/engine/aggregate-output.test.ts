import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

/**
 * `$out` and `$merge` as the last stage of an aggregation, and database-level aggregations
 * (`db.aggregate`, first stage `$documents`), through the in-process API, with MongoDB's codes.
 */
async function insertAll(db: EmbeddedDb, name: string, docs: Document[]): Promise<void> {
  for (const doc of docs) await db.collection(name).insertOne(doc)
}

for (const kind of ENGINES) {
  describe(`$out (${kind})`, () => {
    const db = useEngine(kind)
    const seed = async (name: string, docs: Record<string, unknown>[]) => {
      await db().dropCollection(name)
      await insertAll(db(), name, docs)
    }

    it('replaces the target with the results, yields nothing, and keeps the target unique indexes', async () => {
      await seed('out_src', [{ _id: 1, x: 11 }, { _id: 2, x: 22 }, { _id: 3, x: 33 }])
      await seed('out_dst', [{ _id: 9, x: 99 }])
      await db().collection('out_dst').createIndex({ x: 1 }, { unique: true })
      const yielded = await db().collection('out_src').aggregate([{ $match: { _id: { $gt: 1 } } }, { $sort: { x: 1 } }, { $out: 'out_dst' }]).toArray()
      assert.deepEqual(yielded, [])
      assert.deepEqual(await db().collection('out_dst').find({}).toArray(), [{ _id: 2, x: 22 }, { _id: 3, x: 33 }])
      assert.deepEqual((await db().collection('out_dst').listIndexes().toArray()).map((index) => index['name']), ['_id_', 'x_1'])
      await assert.rejects(db().collection('out_dst').insertOne({ _id: 4, x: 22 }), { code: 11000 })
    })

    it('fails whole, leaving the old contents, when the results break a unique index or repeat an _id', async () => {
      await seed('out_src2', [{ _id: 1, x: 1 }, { _id: 2, x: 1 }])
      await seed('out_dst2', [{ _id: 'old' }])
      await db().collection('out_dst2').createIndex({ x: 1 }, { unique: true })
      await assert.rejects(db().collection('out_src2').aggregate([{ $out: 'out_dst2' }]).toArray(), { code: 11000, keyValue: { x: 1 } })
      await assert.rejects(db().collection('out_src2').aggregate([{ $project: { _id: 0, _id2: '$_id' } }, { $set: { _id: 7 } }, { $out: 'out_dst2' }]).toArray(), {
        code: 11000,
        keyValue: { _id: 7 },
      })
      assert.deepEqual(await db().collection('out_dst2').find({}).toArray(), [{ _id: 'old' }])
    })

    it('generates a missing _id, creates an empty target, and writes into another database with { db, coll }', async () => {
      await seed('out_src3', [{ _id: 1, x: 1 }])
      await db().collection('out_src3').aggregate([{ $project: { _id: 0, x: 1 } }, { $out: 'out_dst3' }]).toArray()
      const [written] = await db().collection('out_dst3').find({}).toArray()
      assert.ok(written?.['_id'] instanceof ObjectId)
      assert.equal(written['x'], 1)
      await db().collection('out_src3').aggregate([{ $match: { x: 2 } }, { $out: 'out_empty' }]).toArray()
      assert.ok(db().listCollectionNames().includes('out_empty'))
      await db().collection('out_src3').aggregate([{ $out: { db: 'other', coll: 'copy' } }]).toArray()
      assert.deepEqual(await db().db('other').collection('copy').find({}).toArray(), [{ _id: 1, x: 1 }])
    })

    it('is applied as one write of the target: a concurrent insert lands wholly before or after it', async () => {
      await seed('out_src4', [{ _id: 1 }, { _id: 2 }])
      await seed('out_dst4', [])
      const out = db().collection('out_src4').aggregate([{ $out: 'out_dst4' }]).toArray()
      const insert = db().collection('out_dst4').insertOne({ _id: 3 })
      await Promise.all([out, insert])
      const ids = (await db().collection('out_dst4').find({}).toArray()).map((doc) => doc['_id'])
      assert.ok([JSON.stringify([1, 2]), JSON.stringify([1, 2, 3])].includes(JSON.stringify(ids)), `unexpected contents ${JSON.stringify(ids)}`)
    })

    it('refuses a bad $out with MongoDB codes', async () => {
      const src = db().collection('out_src')
      await assert.rejects(src.aggregate([{ $out: 5 }]).toArray(), { code: 16990 })
      await assert.rejects(src.aggregate([{ $out: { db: 'x' } }]).toArray(), { code: 40414 })
      await assert.rejects(src.aggregate([{ $out: { db: 'x', coll: 'y', extra: 1 } }]).toArray(), { code: 40415 })
      await assert.rejects(src.aggregate([{ $out: { db: 'x', coll: 1 } }]).toArray(), { code: 14 })
      await assert.rejects(src.aggregate([{ $out: 'a' }, { $match: {} }]).toArray(), { code: 40601, message: '$out can only be the final stage in the pipeline' })
      await assert.rejects(src.aggregate([{ $lookup: { from: 'x', as: 'y', pipeline: [{ $out: 'z' }] } }]).toArray(), { code: 51047 })
      await assert.rejects(src.aggregate([{ $unionWith: { coll: 'x', pipeline: [{ $merge: 'z' }] } }]).toArray(), { code: 31441 })
    })
  })

  describe(`$merge (${kind})`, () => {
    const db = useEngine(kind)
    const seed = async (name: string, docs: Record<string, unknown>[]) => {
      await db().dropCollection(name)
      await insertAll(db(), name, docs)
    }
    const merge = async (spec: unknown, results: Record<string, unknown>[] = [{ _id: 1, a: 'new' }, { _id: 3, a: 'new3' }], before: Document[] = []) => {
      await seed('m_src', results)
      await db().collection('m_src').aggregate([...before, { $merge: spec }]).toArray()
      return db().collection('m_dst').find({}, { sort: { _id: 1 } }).toArray()
    }

    it('by default merges matches on _id and inserts the others', async () => {
      await seed('m_dst', [{ _id: 1, a: 'old', b: 1 }, { _id: 2, a: 'keep' }])
      assert.deepEqual(await merge('m_dst'), [{ _id: 1, a: 'new', b: 1 }, { _id: 2, a: 'keep' }, { _id: 3, a: 'new3' }])
    })

    it('whenMatched replace, keepExisting, and whenNotMatched discard', async () => {
      await seed('m_dst', [{ _id: 1, a: 'old', b: 1 }])
      assert.deepEqual(await merge({ into: 'm_dst', whenMatched: 'replace', whenNotMatched: 'discard' }), [{ _id: 1, a: 'new' }])
      await seed('m_dst', [{ _id: 1, a: 'old', b: 1 }])
      assert.deepEqual(await merge({ into: 'm_dst', whenMatched: 'keepExisting' }), [{ _id: 1, a: 'old', b: 1 }, { _id: 3, a: 'new3' }])
    })

    it('whenMatched pipeline sees the result as $$new and the let variables', async () => {
      await seed('m_dst', [{ _id: 1, n: 10 }])
      const pipeline = [{ $set: { n: { $add: ['$n', '$$new.n'] } } }]
      assert.deepEqual(await merge({ into: 'm_dst', whenMatched: pipeline, whenNotMatched: 'discard' }, [{ _id: 1, n: 5 }]), [{ _id: 1, n: 15 }])
      const withLet = { into: 'm_dst', let: { add: { $multiply: ['$n', 2] } }, whenMatched: [{ $set: { n: { $add: ['$n', '$$add'] } } }] }
      assert.deepEqual(await merge(withLet, [{ _id: 1, n: 5 }]), [{ _id: 1, n: 25 }])
    })

    it('whenMatched fail is a DuplicateKey error; whenNotMatched fail is 13113; the writes before stay', async () => {
      await seed('m_dst', [{ _id: 3, a: 'old3' }])
      await assert.rejects(merge({ into: 'm_dst', whenMatched: 'fail' }), { code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 3 } })
      assert.deepEqual(await db().collection('m_dst').find({}, { sort: { _id: 1 } }).toArray(), [{ _id: 1, a: 'new' }, { _id: 3, a: 'old3' }])
      await seed('m_dst', [{ _id: 1, a: 'old' }])
      await assert.rejects(merge({ into: 'm_dst', whenNotMatched: 'fail' }), { code: 13113, codeName: 'MergeStageNoMatchingDocument' })
    })

    it('on other fields needs a unique index on exactly them (51183), matches through it, and keeps the target _id', async () => {
      await seed('m_dst', [{ _id: 'a', k: 1, v: 'old' }])
      await assert.rejects(merge({ into: 'm_dst', on: 'k' }, [{ k: 1, v: 'new' }], [{ $project: { _id: 0 } }]), { code: 51183 })
      await db().collection('m_dst').createIndex({ k: 1 }, { unique: true })
      // The results come from a collection, so they carry an _id of their own: drop it, as users do.
      assert.deepEqual(await merge({ into: 'm_dst', on: ['k'] }, [{ k: 1, v: 'new' }], [{ $project: { _id: 0 } }]), [{ _id: 'a', k: 1, v: 'new' }])
      await assert.rejects(merge({ into: 'm_dst', on: 'k' }, [{ _id: 'b', k: 1 }]), { code: 66 })
      await assert.rejects(merge({ into: 'm_dst', on: 'k' }, [{ _id: 'b' }]), { code: 51132 })
    })

    it('writes into another database with into: { db, coll }', async () => {
      await seed('m_src', [{ _id: 1 }])
      await db().collection('m_src').aggregate([{ $merge: { into: { db: 'other', coll: 'merged' } } }]).toArray()
      assert.deepEqual(await db().db('other').collection('merged').find({}).toArray(), [{ _id: 1 }])
    })

    it('refuses a bad $merge with MongoDB codes', async () => {
      const src = db().collection('m_src')
      await assert.rejects(src.aggregate([{ $merge: {} }]).toArray(), { code: 40414 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', nope: 1 } }]).toArray(), { code: 40415 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', whenMatched: 'sometimes' } }]).toArray(), { code: 2 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', whenNotMatched: 'replace' } }]).toArray(), { code: 2 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', let: { a: 1 }, whenMatched: 'merge' } }]).toArray(), { code: 51199 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', whenMatched: [{ $match: {} }] } }]).toArray(), { code: 2 })
      await assert.rejects(src.aggregate([{ $merge: { into: 'x', on: [] } }]).toArray(), { code: 51187 })
      await assert.rejects(src.aggregate([{ $merge: 'x' }, { $match: {} }]).toArray(), { code: 40601 })
    })
  })

  describe(`db.aggregate (${kind})`, () => {
    const db = useEngine(kind)

    it('starts from $documents, reads collections with $lookup and writes with $merge', async () => {
      await insertAll(db(), 'people', [{ _id: 1, name: 'ann' }])
      const docs = await db().aggregate([{ $documents: [{ p: 1, n: 2 }] }, { $lookup: { from: 'people', localField: 'p', foreignField: '_id', as: 'who' } }]).toArray()
      assert.deepEqual(docs, [{ p: 1, n: 2, who: [{ _id: 1, name: 'ann' }] }])
      assert.deepEqual(await db().aggregate([{ $documents: [{ _id: 2, name: 'bob' }] }, { $merge: 'people' }]).toArray(), [])
      assert.deepEqual(await db().collection('people').find({}).toArray(), [{ _id: 1, name: 'ann' }, { _id: 2, name: 'bob' }])
    })

    it('lists no local sessions in-process, and refuses other first stages and a misplaced $documents', async () => {
      assert.deepEqual(await db().aggregate([{ $listLocalSessions: {} }]).toArray(), [])
      await assert.rejects(db().aggregate([{ $listLocalSessions: { nope: 1 } }]).toArray(), { code: 40415 })
      await assert.rejects(db().aggregate([{ $match: {} }]).toArray(), { code: 73 })
      await assert.rejects(db().aggregate([{ $currentOp: {} }]).toArray(), { code: 2, message: /\$currentOp is not supported by the embedded engine/ })
      await assert.rejects(db().aggregate([{ $documents: [] }, { $documents: [] }]).toArray(), { code: 40602 })
      await assert.rejects(db().collection('people').aggregate([{ $documents: [] }]).toArray(), { code: 73 })
    })
  })
}

describe('$out and $merge writes are durable', () => {
  it('finds the written documents after the engine is reopened', async () => {
    const dir = await makeTempDir('out-durable')
    try {
      const first = await openEmbedded({ path: dir })
      await insertAll(first, 'src', [{ _id: 1 }, { _id: 2 }])
      await first.collection('src').aggregate([{ $out: 'outed' }]).toArray()
      await first.collection('src').aggregate([{ $merge: 'merged' }]).toArray()
      await first.close()
      const second = await openEmbedded({ path: dir })
      assert.deepEqual(await second.collection('outed').find({}).toArray(), [{ _id: 1 }, { _id: 2 }])
      assert.deepEqual(await second.collection('merged').find({}).toArray(), [{ _id: 1 }, { _id: 2 }])
      await second.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

for (const kind of ENGINES) {
  describe(`$count (${kind})`, () => {
    const db = useEngine(kind)
    it('outputs no document when no document reaches it, as MongoDB does; the count otherwise', async () => {
      await db().dropCollection('count_src')
      await insertAll(db(), 'count_src', [{ _id: 1, a: 1 }, { _id: 2, a: 1 }])
      assert.deepEqual(await db().collection('count_src').aggregate([{ $match: { a: 2 } }, { $count: 'n' }]).toArray(), [])
      assert.deepEqual(await db().collection('count_empty').aggregate([{ $count: 'n' }]).toArray(), [])
      assert.deepEqual(await db().collection('count_src').aggregate([{ $match: { a: 1 } }, { $count: 'n' }]).toArray(), [{ n: 2 }])
    })
  })
}
