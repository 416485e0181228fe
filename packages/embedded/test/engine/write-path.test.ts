import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { seededRandom } from '../../../../test/harness/seeded-random.ts'
import { decodeDocument, documentsEncoded, encodeDocument } from '../../src/bson/bson-codec.ts'
import { plainCopy } from '../../src/bson/plain-copy.ts'
import { ENGINES, useEngine } from './engines.ts'

for (const kind of ENGINES) {
  describe(`the write path encodes each document once (${kind})`, () => {
    const db = useEngine(kind)

    it('insertOne: the document as stored (its _id first), encoded once', async () => {
      const coll = db().collection('encoded-once')
      const doc: Record<string, unknown> = { name: 'a', tags: ['x', 'y'], nested: { n: 1 } }
      const start = documentsEncoded()
      const { insertedId } = await coll.insertOne(doc)
      assert.equal(documentsEncoded() - start, 1)
      assert.ok(insertedId instanceof ObjectId)
      // The generated _id was added last to the caller's object; it is stored first.
      assert.deepEqual(Object.keys((await coll.findOne({ _id: insertedId }))!), ['_id', 'name', 'tags', 'nested'])
      await coll.insertOne({ name: 'b', _id: 7, undef: undefined })
      assert.deepEqual(await coll.findOne({ _id: 7 }), { _id: 7, name: 'b', undef: null })
    })

    it('an upsert that inserts encodes its document once', async () => {
      const coll = db().collection('upserted-once')
      const start = documentsEncoded()
      await coll.updateOne({ _id: 3 }, { $setOnInsert: { a: 1 } }, { upsert: true })
      // The filter's equalities and the update are copied as BSON would copy them (plain-copy.ts), without encoding.
      assert.equal(documentsEncoded() - start, 1)
      assert.deepEqual(await coll.findOne({ _id: 3 }), { _id: 3, a: 1 })
    })
  })
}

describe('plain copies: what BSON gives back, without BSON', () => {
  const random = seededRandom(2024)
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const SCALARS = [0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 0.5, -0, Number.NaN, Number.POSITIVE_INFINITY, '', 'a', 'é', '\0', '\uD800', '😀', true, false, null, undefined]
  const KEYS = ['a', 'b', '$set', 'x.y', '10', '2', 'é', '_id', '\uDC00', '__proto__', '_bsontype']
  function value(depth: number): unknown {
    const roll = random()
    if (depth > 5 || roll < 0.55) return pick(SCALARS)
    if (roll < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
    if (roll < 0.75) return pick([new Date(0), new ObjectId(), Buffer.from('x'), new Map([['k', 1]])])
    return documentOf(depth + 1)
  }
  function documentOf(depth: number): Record<string, unknown> {
    const doc: Record<string, unknown> = {}
    for (let i = Math.floor(random() * 4); i > 0; i--) Object.defineProperty(doc, pick(KEYS), { value: value(depth), enumerable: true, configurable: true, writable: true })
    return doc
  }

  it('gives every document it copies as a round trip through BSON gives it, and leaves the others to BSON', () => {
    let copied = 0
    for (let i = 0; i < 3000; i++) {
      const doc = documentOf(0)
      const plain = plainCopy(doc)
      if (plain === undefined) continue
      copied++
      assert.deepStrictEqual(plain, decodeDocument(encodeDocument(doc)), JSON.stringify(doc))
    }
    assert.ok(copied > 500, `only ${copied} documents copied plainly`)
  })
})
