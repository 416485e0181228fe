import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, describe, it } from 'node:test'
import type { Document } from '../../src/document.ts'
import { openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'
import { runAndKill } from './kill-after-acks.ts'

/** The token before the first change of an engine: resuming after it reads the whole log. */
const FROM_START = { _data: '0'.repeat(16) }

/** Inserts one by one (the engine has no insertMany), each acknowledged before the next. */
async function insertEach(coll: { insertOne(doc: Document): Promise<unknown> }, docs: Document[]): Promise<void> {
  for (const doc of docs) await coll.insertOne(doc)
}

/** The `_id` of the document an event is about. */
function keyOf(event: Document): unknown {
  return (event['documentKey'] as Document)['_id']
}

/** The next `count` changes of a stream (each `next()` waits for a durable write: no timing involved). */
async function take(stream: { next(): Promise<Document> }, count: number): Promise<Document[]> {
  const events: Document[] = []
  for (let i = 0; i < count; i++) events.push(await stream.next())
  return events
}

for (const kind of ENGINES) {
  describe(`collection.watch() (${kind})`, () => {
    const db = useEngine(kind)

    it('tells each insert, update, replace and delete, shaped as a server change event', async () => {
      const coll = db().collection('watched')
      const stream = coll.watch()
      await coll.insertOne({ _id: 1, name: 'a', tag: 'x' })
      await coll.updateOne({ _id: 1 }, { $set: { name: 'b' }, $unset: { tag: '' } })
      await coll.replaceOne({ _id: 1 }, { name: 'c' })
      await coll.deleteOne({ _id: 1 })
      assert.equal(await stream.hasNext(), true)
      const [insert, update, replace, remove] = await take(stream, 4)
      assert.equal(insert?.['operationType'], 'insert')
      assert.deepEqual(insert?.['fullDocument'], { _id: 1, name: 'a', tag: 'x' })
      assert.deepEqual(insert?.['ns'], { db: 'embedded', coll: 'watched' })
      assert.deepEqual(insert?.['documentKey'], { _id: 1 })
      assert.equal(update?.['operationType'], 'update')
      assert.equal(update?.['fullDocument'], undefined, 'fullDocument: default leaves it out of an update')
      assert.deepEqual(update?.['updateDescription'], { updatedFields: { name: 'b' }, removedFields: ['tag'], truncatedArrays: [] })
      assert.equal(replace?.['operationType'], 'replace')
      assert.deepEqual(replace?.['fullDocument'], { _id: 1, name: 'c' })
      assert.equal(remove?.['operationType'], 'delete')
      assert.deepEqual(remove?.['documentKey'], { _id: 1 })
      assert.equal(remove?.['fullDocument'], undefined)
      assert.deepEqual(stream.resumeToken, remove?.['_id'])
      await stream.close()
    })

    it('gives the images around an update on request, and only this collection\'s changes', async () => {
      const coll = db().collection('images')
      const stream = coll.watch([], { fullDocument: 'updateLookup', fullDocumentBeforeChange: 'whenAvailable' })
      await db().collection('elsewhere').insertOne({ _id: 1 })
      await coll.insertOne({ _id: 1, n: 1 })
      await coll.updateMany({}, { $inc: { n: 1 } })
      const [insert, update] = await take(stream, 2)
      assert.deepEqual(insert?.['documentKey'], { _id: 1 })
      assert.deepEqual(update?.['fullDocument'], { _id: 1, n: 2 })
      assert.deepEqual(update?.['fullDocumentBeforeChange'], { _id: 1, n: 1 })
      assert.equal(await stream.tryNext(), null)
      await stream.close()
    })

    it('applies its pipeline ($match on the event) to each change', async () => {
      const coll = db().collection('piped')
      const stream = coll.watch([{ $match: { operationType: 'delete' } }, { $project: { operationType: 1, documentKey: 1 } }])
      await insertEach(coll, [{ _id: 1 }, { _id: 2 }])
      await coll.deleteOne({ _id: 2 })
      const [only] = await take(stream, 1)
      assert.deepEqual({ ...only, _id: undefined }, { _id: undefined, operationType: 'delete', documentKey: { _id: 2 } })
      await stream.close()
      assert.throws(() => coll.watch([{ $group: { _id: null } }]), /\$group is not permitted in a \$changeStream pipeline/)
    })

    it('resumes right after a token: none missed, none repeated', async () => {
      const coll = db().collection('resumed')
      const first = coll.watch()
      await insertEach(coll, [{ _id: 1 }, { _id: 2 }, { _id: 3 }])
      const seen = await take(first, 2)
      await first.close()
      await coll.insertOne({ _id: 4 })
      const again = coll.watch([], { resumeAfter: seen[1]?.['_id'] })
      const rest = await take(again, 2)
      assert.deepEqual(rest.map((event) => keyOf(event)), [3, 4])
      assert.equal(await again.tryNext(), null)
      await again.close()
      // startAfter does the same; a batchSize of 1 reads the log one change at a time.
      const after = coll.watch([], { startAfter: seen[1]?.['_id'], batchSize: 1 })
      assert.deepEqual((await take(after, 2)).map((event) => keyOf(event)), [3, 4])
      await after.close()
    })

    it("tells a transaction's net changes once it commits, and nothing of an aborted one", async () => {
      const coll = db().collection('transacted')
      await coll.insertOne({ _id: 'kept', n: 1 })
      await coll.insertOne({ _id: 'gone' })
      const stream = coll.watch([], { fullDocument: 'updateLookup' })
      const aborted = db().client.startSession()
      aborted.startTransaction()
      await coll.insertOne({ _id: 'never' }, { session: aborted })
      await aborted.abortTransaction()
      await aborted.endSession()
      const session = db().client.startSession()
      session.startTransaction()
      await coll.updateOne({ _id: 'kept' }, { $inc: { n: 1 } }, { session })
      await coll.insertOne({ _id: 'new' }, { session })
      await coll.deleteOne({ _id: 'gone' }, { session })
      assert.equal(await stream.tryNext(), null, 'nothing before the commit')
      await session.commitTransaction()
      await session.endSession()
      const events = await take(stream, 3)
      const told = events.map((event) => [event['operationType'], keyOf(event)]).sort((a, b) => String(a[1]).localeCompare(String(b[1])))
      assert.deepEqual(told, [['delete', 'gone'], ['update', 'kept'], ['insert', 'new']])
      assert.deepEqual(events.find((event) => keyOf(event) === 'kept')?.['fullDocument'], { _id: 'kept', n: 2 })
      assert.equal(await stream.tryNext(), null)
      await stream.close()
    })

    it('refuses a token it did not issue', async () => {
      const coll = db().collection('tokens')
      assert.throws(() => coll.watch([], { resumeAfter: { _data: 'nope' } }), { code: 2 })
      assert.throws(() => coll.watch([], { resumeAfter: { _data: 'ffffffffffffffff' } }), { code: 280 })
    })

    it('emits `change` to a listener, and ends a waiting next() at close', async () => {
      const coll = db().collection('emitted')
      const stream = coll.watch()
      const heard = new Promise<Document>((resolve) => stream.once('change', resolve))
      await coll.insertOne({ _id: 'e' })
      assert.deepEqual((await heard)['documentKey'], { _id: 'e' })
      const waiting = stream.next()
      await stream.close()
      await assert.rejects(waiting, /ChangeStream is closed/)
    })
  })

  describe(`change log retention (${kind})`, () => {
    let dir: string | undefined
    after(async () => {
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('answers ChangeStreamHistoryLost (286) for a token older than what it keeps', async () => {
      dir = kind === 'lmdb' ? await makeTempDir('changes-retained') : undefined
      const db = await openEmbedded({ ...(dir ? { path: dir } : {}), changeRetention: { events: 3 } })
      try {
        const coll = db.collection('kept')
        const behind = coll.watch()
        await insertEach(coll, [{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }, { _id: 5 }])
        // Changes 3 to 5 are kept: resuming after 2 loses nothing, after 1 (or a reader still there) would.
        const tokens = (await take(coll.watch([], { resumeAfter: { _data: '0000000000000002' } }), 3)).map((event) => event['_id'])
        assert.deepEqual(tokens, [{ _data: '0000000000000003' }, { _data: '0000000000000004' }, { _data: '0000000000000005' }])
        assert.throws(() => coll.watch([], { resumeAfter: FROM_START }), { code: 286, codeName: 'ChangeStreamHistoryLost' })
        await assert.rejects(behind.next(), { code: 286 })
      } finally {
        await db.close()
      }
    })

    it('keeps exactly the last `events` changes over many writes, and after a reopen', async () => {
      const path = kind === 'lmdb' ? await makeTempDir('changes-many') : undefined
      const token = (seq: number) => ({ _data: seq.toString(16).padStart(16, '0') })
      try {
        for (const round of [1, 2]) {
          const db = await openEmbedded({ ...(path ? { path } : {}), changeRetention: { events: 5 } })
          try {
            const coll = db.collection('many')
            if (round === 1) await Promise.all(Array.from({ length: 200 }, (_, i) => coll.insertOne({ _id: i })))
            const kept = (await take(coll.watch([], { resumeAfter: token(195) }), 5)).map((event) => event['_id'])
            assert.deepEqual(kept, [196, 197, 198, 199, 200].map(token))
            assert.throws(() => coll.watch([], { resumeAfter: token(194) }), { code: 286 })
          } finally {
            await db.close()
          }
          if (!path) break
        }
      } finally {
        if (path) await rm(path, { recursive: true, force: true })
      }
    })
  })
}

describe('changeRetention option', () => {
  it('is checked when the engine opens', async () => {
    await assert.rejects(openEmbedded({ changeRetention: { events: 0 } }), /changeRetention.events must be a whole number of at least 1/)
    await assert.rejects(openEmbedded({ changeRetention: { ms: -1 } }), /changeRetention.ms must be a positive number/)
    await assert.rejects(openEmbedded({ changeRetention: { days: 1 } as never }), /unknown option days/)
  })
})

describe('change log on disk', () => {
  let dir: string | undefined
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('resumes across a restart of the engine', async () => {
    dir = await makeTempDir('changes-restart')
    const before = await openEmbedded({ path: dir })
    const stream = before.collection('restarted').watch()
    await insertEach(before.collection('restarted'), [{ _id: 1 }, { _id: 2 }])
    const [first] = await take(stream, 1)
    await before.close()
    const reopened = await openEmbedded({ path: dir })
    try {
      const coll = reopened.collection('restarted')
      const resumed = coll.watch([], { resumeAfter: first?.['_id'] })
      await coll.insertOne({ _id: 3 })
      assert.deepEqual((await take(resumed, 2)).map((event) => keyOf(event)), [2, 3])
      await resumed.close()
    } finally {
      await reopened.close()
    }
  })

  it('ends the iteration of every stream when the engine closes', async () => {
    const db = await openEmbedded()
    const stream = db.collection('closing').watch()
    const iterated = (async () => {
      const seen: Document[] = []
      for await (const event of stream) seen.push(event)
      return seen
    })()
    await db.collection('closing').insertOne({ _id: 1 })
    await db.close()
    assert.ok((await iterated).length <= 1)
    assert.equal(stream.closed, true)
  })

  it('has the event of every acknowledged write after kill -9', async () => {
    dir = await makeTempDir('changes-kill')
    const acked = await runAndKill('write-acked.ts', dir, 40)
    const db = await openEmbedded({ path: dir })
    try {
      const stream = db.collection('acked').watch([], { resumeAfter: FROM_START })
      const logged = new Set<unknown>()
      for (let event = await stream.tryNext(); event; event = await stream.tryNext()) logged.add(keyOf(event))
      for (const id of acked) assert.ok(logged.has(id), `acknowledged insert ${id} has no change event`)
      const stored = new Set((await db.collection('acked').find({}).toArray()).map((doc) => doc['_id']))
      assert.deepEqual(logged, stored, 'the log holds exactly the committed inserts')
      await stream.close()
    } finally {
      await db.close()
    }
  })
})

