import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { ENGINES, useEngine } from './engines.ts'

const owner1 = new ObjectId()
const owner2 = new ObjectId()

const PEOPLE: Document[] = [
  { _id: 1, name: 'Ada', age: 36, tags: ['math', 'code'], owner: owner1, address: { city: 'London', zip: 'N1' }, pets: [{ kind: 'cat', age: 3 }, { kind: 'dog', age: 9 }] },
  { _id: 2, name: 'alan', age: 41, tags: ['code'], owner: owner2, address: { city: 'Manchester' }, pets: [{ kind: 'dog', age: 2 }] },
  { _id: 3, name: 'Grace', age: 85, tags: ['navy', 'code', 'cobol'], owner: owner1, address: null, pets: [] },
  { _id: 4, name: 'Linus', tags: [], address: { city: 'Helsinki' } },
  { _id: 5, name: 'Bob', age: null, tags: ['math'] },
]

for (const kind of ENGINES) {
  describe(`filters (${kind})`, () => {
    const db = useEngine(kind)
    before(async () => {
      for (const doc of PEOPLE) await db().collection('people').insertOne({ ...doc })
    })

    async function ids(filter: Document): Promise<unknown[]> {
      const docs = await db().collection('people').find(filter).toArray()
      return docs.map((d) => d['_id']).sort()
    }

    const cases: [string, Document, number[]][] = [
      ['implicit equality', { name: 'Ada' }, [1]],
      ['$eq', { age: { $eq: 41 } }, [2]],
      ['$eq null matches null and missing', { age: null }, [4, 5]],
      ['$ne', { name: { $ne: 'Ada' } }, [2, 3, 4, 5]],
      ['$ne null excludes null and missing', { age: { $ne: null } }, [1, 2, 3]],
      ['$gt', { age: { $gt: 40 } }, [2, 3]],
      ['$gte', { age: { $gte: 41 } }, [2, 3]],
      ['$lt', { age: { $lt: 41 } }, [1]],
      ['$lte', { age: { $lte: 41 } }, [1, 2]],
      ['$gt on strings compares bytes', { name: { $gt: 'Z' } }, [2]],
      ['$in', { name: { $in: ['Ada', 'Bob', 'nobody'] } }, [1, 5]],
      ['$in with a regex', { name: { $in: [/^a/] } }, [2]],
      ['$nin', { name: { $nin: ['Ada', 'Bob'] } }, [2, 3, 4]],
      ['$exists true', { age: { $exists: true } }, [1, 2, 3, 5]],
      ['$exists false', { age: { $exists: false } }, [4]],
      ['$and', { $and: [{ age: { $gt: 30 } }, { tags: 'math' }] }, [1]],
      ['$or', { $or: [{ name: 'Ada' }, { age: 85 }] }, [1, 3]],
      ['$nor', { $nor: [{ name: 'Ada' }, { age: { $exists: false } }] }, [2, 3, 5]],
      ['$not', { age: { $not: { $gt: 40 } } }, [1, 4, 5]],
      ['$regex', { name: { $regex: '^a' } }, [2]],
      ['$regex with $options', { name: { $regex: '^a', $options: 'i' } }, [1, 2]],
      ['RegExp literal', { name: /^A/i }, [1, 2]],
      ['$not with a regex', { name: { $not: /^a/i } }, [3, 4, 5]],
      ['equality on an array element', { tags: 'code' }, [1, 2, 3]],
      ['$all', { tags: { $all: ['code', 'math'] } }, [1]],
      ['$size', { tags: { $size: 1 } }, [2, 5]],
      ['$size 0', { tags: { $size: 0 } }, [4]],
      ['$elemMatch on documents', { pets: { $elemMatch: { kind: 'dog', age: { $gt: 5 } } } }, [1]],
      ['dotted path into arrays of documents (no elemMatch)', { 'pets.kind': 'dog', 'pets.age': { $lt: 3 } }, [2]],
      ['$elemMatch on scalars', { tags: { $elemMatch: { $gte: 'n', $lt: 'o' } } }, [3]],
      ['dotted path into a sub-document', { 'address.city': 'London' }, [1]],
      ['dotted path with $exists', { 'address.zip': { $exists: true } }, [1]],
      ['ObjectId equality', { owner: owner1 }, [1, 3]],
      ['ObjectId equality with a new instance', { owner: new ObjectId(owner2.toHexString()) }, [2]],
      ['$in with ObjectIds', { owner: { $in: [owner2, new ObjectId()] } }, [2]],
      ['$nin with ObjectIds', { owner: { $nin: [owner1] } }, [2, 4, 5]],
      ['_id point read', { _id: 3 }, [3]],
      ['_id point read with other conditions', { _id: 3, name: 'Ada' }, []],
      ['_id $in', { _id: { $in: [5, 1, 99] } }, [1, 5]],
      ['_id range', { _id: { $gte: 4 } }, [4, 5]],
    ]
    for (const [title, filter, expected] of cases) {
      it(`matches ${title}`, async () => {
        assert.deepEqual(await ids(filter), expected)
      })
    }

    it('counts matching documents', async () => {
      assert.equal(await db().collection('people').countDocuments({ tags: 'code' }), 3)
      assert.equal(await db().collection('people').countDocuments({}), 5)
    })

    it('rejects an unknown operator with BadValue', async () => {
      await assert.rejects(ids({ age: { $bogus: 1 } }), { code: 2 })
    })

    it('applies projections', async () => {
      const coll = db().collection('people')
      assert.deepEqual(await coll.findOne({ _id: 1 }, { projection: { name: 1 } }), { _id: 1, name: 'Ada' })
      assert.deepEqual(await coll.findOne({ _id: 1 }, { projection: { _id: 0, 'address.city': 1 } }), { address: { city: 'London' } })
      const excluded = await coll.findOne({ _id: 2 }, { projection: { pets: 0, tags: 0, owner: 0 } })
      assert.deepEqual(excluded, { _id: 2, name: 'alan', age: 41, address: { city: 'Manchester' } })
    })
  })
}
