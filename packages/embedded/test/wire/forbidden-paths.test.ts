import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Document } from '../../src/document.ts'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'
import { useWireServer } from './wire-harness.ts'

/**
 * Field path segments that name a JavaScript object's internals: a client path through them must
 * never become a property access on a plain object (prototype pollution), over the wire or in
 * process. Each entry point is refused with BadValue before anything is walked or built.
 */
const SEGMENTS = ['__proto__', 'constructor', 'prototype'] as const

/** The methods both the driver's Collection and the engine's EmbeddedCollection have. */
interface Target {
  updateOne(filter: Document, update: Document, options?: Document): Promise<unknown>
  updateMany(filter: Document, update: Document, options?: Document): Promise<unknown>
  replaceOne(filter: Document, replacement: Document, options?: Document): Promise<unknown>
  findOneAndUpdate(filter: Document, update: Document, options?: Document): Promise<unknown>
  findOneAndReplace(filter: Document, replacement: Document, options?: Document): Promise<unknown>
  find(filter: Document, options?: Document): { toArray(): Promise<unknown[]> }
  aggregate(pipeline: Document[]): { toArray(): Promise<unknown[]> }
  createIndex(keys: Document, options?: Document): Promise<unknown>
}

type Case = [name: string, run: (target: Target) => Promise<unknown>]

function casesFor(s: string): Case[] {
  const p = `${s}.polluted`
  return [
    ['updateOne upsert seed', (t) => t.updateOne({ _id: 100, [p]: true }, { $set: { a: 1 } }, { upsert: true })],
    ['updateOne upsert seed inside $and', (t) => t.updateOne({ $and: [{ _id: 101 }, { [p]: true }] }, { $set: { a: 1 } }, { upsert: true })],
    ['updateOne upsert seed of a bare segment', (t) => t.updateOne({ _id: 102, [s]: { toString: 1 } }, { $set: { a: 1 } }, { upsert: true })],
    ['replaceOne upsert seed', (t) => t.replaceOne({ _id: 103, [p]: true }, { a: 1 }, { upsert: true })],
    ['findOneAndUpdate upsert seed', (t) => t.findOneAndUpdate({ _id: 104, [p]: true }, { $set: { a: 1 } }, { upsert: true })],
    ['findOneAndReplace upsert seed', (t) => t.findOneAndReplace({ _id: 105, [p]: true }, { a: 1 }, { upsert: true })],
    ['$set path', (t) => t.updateOne({ _id: 1 }, { $set: { [p]: true } })],
    ['nested $set path', (t) => t.updateOne({ _id: 1 }, { $set: { [`o.${p}`]: true } })],
    ['$set path past a positional segment', (t) => t.updateOne({ _id: 1 }, { $set: { [`list.$[].${p}`]: true } })],
    ['$inc path', (t) => t.updateOne({ _id: 1 }, { $inc: { [p]: 1 } })],
    ['$unset path', (t) => t.updateOne({ _id: 1 }, { $unset: { [p]: '' } })],
    ['$rename target', (t) => t.updateOne({ _id: 1 }, { $rename: { o: p } })],
    ['$setOnInsert path on upsert', (t) => t.updateOne({ _id: 106 }, { $setOnInsert: { [p]: true } }, { upsert: true })],
    ['updateMany $set path', (t) => t.updateMany({}, { $set: { [p]: true } })],
    ['findOneAndUpdate $set path', (t) => t.findOneAndUpdate({ _id: 1 }, { $set: { [p]: true } })],
    ['find projection', (t) => t.find({}, { projection: { [p]: 1 } }).toArray()],
    ['nested find projection', (t) => t.find({}, { projection: { o: { [s]: 1 } } }).toArray()],
    ['find sort', (t) => t.find({}, { sort: { [p]: 1 } }).toArray()],
    ['findOneAndUpdate sort', (t) => t.findOneAndUpdate({}, { $set: { a: 2 } }, { sort: { [p]: 1 } })],
    ['findOneAndUpdate projection', (t) => t.findOneAndUpdate({ _id: 1 }, { $set: { a: 2 } }, { projection: { [p]: 1 } })],
    ['aggregate $sort', (t) => t.aggregate([{ $sort: { [p]: 1 } }]).toArray()],
    ['aggregate $set', (t) => t.aggregate([{ $set: { [p]: true } }]).toArray()],
    ['aggregate $project', (t) => t.aggregate([{ $project: { [p]: 1 } }]).toArray()],
    ['createIndex key', (t) => t.createIndex({ [p]: 1 }, { unique: true })],
  ]
}

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort()
const PROTOTYPE_TO_STRING = Object.prototype.toString

function assertPrototypeIntact(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), PROTOTYPE_NAMES)
  assert.equal(Object.prototype.toString, PROTOTYPE_TO_STRING)
  assert.equal(Object.prototype.constructor, Object)
}

function refusal(segment: string) {
  return (error: unknown) => {
    const e = error as { code?: unknown, codeName?: unknown, message: string }
    assert.equal(e.code, 2, e.message)
    // A write error carries no codeName on the wire (as from the server); a command error does.
    if (e.codeName !== undefined) assert.equal(e.codeName, 'BadValue')
    assert.match(e.message, new RegExp(`'${segment}'`))
    return true
  }
}

async function seed(target: Target): Promise<void> {
  await target.replaceOne({ _id: 1 }, { o: { x: 1 }, list: [{ b: 1 }] }, { upsert: true })
}

function refusesEverywhere(target: () => Target, alive: () => Promise<void>): void {
  for (const segment of SEGMENTS) {
    for (const [name, run] of casesFor(segment)) {
      it(`refuses '${segment}' in ${name}`, async () => {
        await seed(target())
        await assert.rejects(run(target()), refusal(segment))
        assertPrototypeIntact()
        await alive()
      })
    }
  }
}

describe('paths through object internals, over the wire', () => {
  const wire = useWireServer()
  const target = () => wire().client.db('test').collection('guarded') as unknown as Target
  const alive = async () => {
    assert.equal((await wire().client.db('test').command({ ping: 1 }))['ok'], 1)
  }

  refusesEverywhere(target, alive)

  it("leaves the server answering after an upsert seeded with '__proto__.toString'", async () => {
    await assert.rejects(target().updateOne({ _id: 200, '__proto__.toString': true }, { $set: { a: 1 } }, { upsert: true }), refusal('__proto__'))
    assertPrototypeIntact()
    await alive()
  })

  for (const segment of SEGMENTS) {
    it(`refuses '${segment}' in a distinct key`, async () => {
      await seed(target())
      const collection = wire().client.db('test').collection('guarded')
      await assert.rejects(collection.distinct(`${segment}.polluted`), refusal(segment))
      await assert.rejects(collection.distinct(segment), refusal(segment))
      await alive()
    })
  }

  it('still accepts documents whose field names merely resemble them, as data', async () => {
    await target().updateOne({ _id: 201 }, { $set: { proto: 1, constructors: 2, 'o.__proto': 3 } }, { upsert: true })
    assert.deepEqual(await target().find({ _id: 201 }).toArray(), [{ _id: 201, proto: 1, constructors: 2, o: { __proto: 3 } }])
  })
})

describe('paths through object internals, in process (openEmbedded)', () => {
  let db: EmbeddedDb | undefined
  before(async () => {
    db = await openEmbedded()
  })
  after(async () => {
    await db?.close()
  })
  const target = () => db!.collection('guarded') as unknown as Target

  refusesEverywhere(target, async () => {
    assert.ok(await db!.collection('guarded').findOne({ _id: 1 }))
  })
})
