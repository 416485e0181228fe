import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { CRUDPopulate, type DriverCollection, type DriverDb, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { rawGet } from '../harness/raw-get.ts'
import { storeModes } from '../harness/stores.ts'

/**
 * A page of at most 1000 documents is answered in one piece while its populated text stays under a
 * megabyte; past that it is streamed as it is populated (docs/http-contract.md), so the server never holds
 * a whole populated answer of many megabytes per request. Store-independent: one store.
 */

const Artist = MongoModel('BigPageArtist', { name: Type.String() })
const Track = MongoModel('BigPageTrack', { title: Type.String(), artistIds: Type.Array(ObjectIdField()) })
const ARTISTS = 1000
const TRACKS = 300
const PER_TRACK = 100
/** Some 140 bytes per populated artist: 100 per track make 14 KB, a page of 300 tracks 4 MB. */
const LONG_NAME = 'x'.repeat(100)

interface Page {
  t: TestApp
  ids: ObjectId[]
}

/** Artists and tracks; `wrapDb` may break the artists' reads. */
async function seeded(wrapDb?: (db: DriverDb) => DriverDb): Promise<Page> {
  const t = await buildAppWith(
    storeModes[0]!,
    wrapDb === undefined ? {} : { wrapDb },
    { model: Artist, collectionName: 'artists', prefix: '/artists' },
    { model: Track, collectionName: 'tracks', prefix: '/tracks', populates: [new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist })] },
  )
  const ids = Array.from({ length: ARTISTS }, () => new ObjectId())
  await Promise.all(ids.map((_id, i) => t.store.db.collection('artists').insertOne({ _id, name: `${i} ${LONG_NAME}` })))
  await Promise.all(
    Array.from({ length: TRACKS }, (_, i) =>
      t.store.db.collection('tracks').insertOne({ title: `track ${i}`, artistIds: Array.from({ length: PER_TRACK }, (_, j) => ids[(i * PER_TRACK + j) % ARTISTS]) }),
    ),
  )
  return { t, ids }
}

describe('a populated page of many megabytes', () => {
  let page: Page
  before(async () => {
    page = await seeded()
  })
  after(() => page.t.close())

  it('is streamed past a megabyte, complete, every reference populated in order', async () => {
    const res = await page.t.app.inject({ method: 'GET', url: `/tracks?limit=${TRACKS}` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-length'], undefined, 'a populated page of megabytes was held whole to be sent in one piece')
    assert.ok(res.body.length > 1024 * 1024)
    const tracks = res.json() as Array<{ title: string, artistIds: Array<{ id: string, name: string }> }>
    assert.equal(tracks.length, TRACKS)
    const titles = new Set(tracks.map((track) => track.title))
    assert.equal(titles.size, TRACKS)
    for (const track of tracks) {
      const i = Number(track.title.slice('track '.length))
      assert.deepEqual(
        track.artistIds.map((artist) => artist.id),
        Array.from({ length: PER_TRACK }, (_, j) => page.ids[(i * PER_TRACK + j) % ARTISTS]!.toHexString()),
      )
      assert.ok(track.artistIds.every((artist) => artist.name.endsWith(LONG_NAME)))
    }
  })

  it('is answered in one piece while its text stays under a megabyte', async () => {
    const res = await page.t.app.inject({ method: 'GET', url: '/tracks?limit=5' })
    assert.equal(res.statusCode, 200)
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body))
    assert.equal((res.json() as unknown[]).length, 5)
  })
})

/**
 * `db` whose `artists` reads fail once they have asked for more than `ids` ids (a storage error while the
 * page is populated): counted by ids, whatever the batches the page is populated in.
 */
function breakArtistsAfter(ids: number): (db: DriverDb) => DriverDb {
  let asked = 0
  return (db) => ({
    collection(name: string): DriverCollection {
      const real = db.collection(name)
      if (name !== 'artists') return real
      return new Proxy(real, {
        get: (target, key, receiver) => {
          if (key !== 'find') return Reflect.get(target, key, receiver)
          return (...args: Parameters<DriverCollection['find']>) => {
            const wanted = (args[0] as { _id?: { $in?: unknown[] } })._id?.$in
            asked += wanted?.length ?? 1
            if (asked > ids) throw new Error('disk read failed half-way')
            return target.find(...args)
          }
        },
      })
    },
  })
}

describe('a populated page that fails after a megabyte went out', () => {
  let page: Page
  before(async () => {
    // Half the page (150 tracks, 2 MB) is shown; the read of the next references fails.
    page = await seeded(breakArtistsAfter((TRACKS / 2) * PER_TRACK))
  })
  after(() => page.t.close())

  it('is cut short, never a complete-looking 200', async () => {
    await page.t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = page.t.app.server.address()
    assert.ok(address !== null && typeof address === 'object')
    const res = await rawGet(address.port, `/tracks?limit=${TRACKS}`)
    assert.equal(res.status, 200)
    assert.equal(res.ended, 'with an error')
    assert.ok(res.body.length > 1024 * 1024)
    assert.throws(() => JSON.parse(res.body))
  })
})

/** What the reads of one page did, as `watchReads` saw them. */
interface Reads {
  /** Tracks the page's cursor has handed over. */
  tracks: number
  /** How many it had when the artists were first read. */
  tracksAtFirstArtists: number | undefined
  /** Runs when the artists are read. */
  onArtists: (() => void) | undefined
  /** Settles once the tracks' cursor is closed. */
  closed: Promise<void>
}

/** `db` that counts the tracks its cursors hand over, and tells when the artists are read and when a tracks cursor is closed. */
function watchReads(): { reads: Reads, wrapDb: (db: DriverDb) => DriverDb } {
  let closed = () => {}
  const reads: Reads = { tracks: 0, tracksAtFirstArtists: undefined, onArtists: undefined, closed: new Promise((resolve) => (closed = resolve)) }
  const wrapDb = (db: DriverDb) =>
    interceptCollections(db, (call, method, _args, name) => {
      if (method !== 'find') return call()
      if (name === 'artists') {
        reads.tracksAtFirstArtists ??= reads.tracks
        reads.onArtists?.()
        return call()
      }
      return new Proxy(call() as object, {
        get: (target, key) => {
          if (key === Symbol.asyncIterator) {
            return async function* () {
              for await (const doc of target as AsyncIterable<unknown>) {
                reads.tracks++
                yield doc
              }
            }
          }
          const value = Reflect.get(target, key) as unknown
          if (key === 'close') return () => (value as () => Promise<void>).call(target).finally(closed)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    }) as DriverDb
  return { reads, wrapDb }
}

describe('a populated page is read as it is shown', () => {
  it('populates its first documents before it reads its last ones', async () => {
    const { reads, wrapDb } = watchReads()
    const { t } = await seeded(wrapDb)
    try {
      const res = await t.app.inject({ method: 'GET', url: `/tracks?limit=${TRACKS}` })
      assert.equal(res.statusCode, 200)
      assert.equal((res.json() as unknown[]).length, TRACKS)
      assert.equal(reads.tracks, TRACKS)
      // A batch is at most 100 documents (and about 500 references): never the whole page before its populates.
      assert.ok(reads.tracksAtFirstArtists !== undefined && reads.tracksAtFirstArtists <= 100, `${reads.tracksAtFirstArtists} tracks were read before the first were populated`)
    } finally {
      await t.close()
    }
  })

  // Without the close, `closed` never settles: the timeout fails the test.
  it('closes its cursor when the client leaves while it is populated, before any byte went out', { timeout: 30_000 }, async () => {
    const { reads, wrapDb } = watchReads()
    const { t } = await seeded(wrapDb)
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const address = t.app.server.address()
      assert.ok(address !== null && typeof address === 'object')
      const client = request({ host: '127.0.0.1', port: address.port, path: `/tracks?limit=${TRACKS}` })
      client.on('error', () => {})
      reads.onArtists = () => {
        reads.onArtists = undefined
        client.destroy()
      }
      client.end()
      await reads.closed
      assert.ok(reads.tracks < TRACKS, 'the page was read to its end for a client that had left')
    } finally {
      await t.close()
    }
  })
})
