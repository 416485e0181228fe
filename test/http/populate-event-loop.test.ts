import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDPopulate, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { buildApp, type TestApp } from '../harness/app.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * A page whose populates reference many documents (1,000 tracks naming 10 artists each) is read,
 * populated, fitted and serialized in slices, letting the event loop run between two: a setImmediate
 * chain started with the request counts the loop's turns until the answer. Before, the page went out
 * in one synchronous stretch (and matching the ids was quadratic in their number).
 */

const Artist = MongoModel('LoopArtist', { name: Type.String() })
const Track = MongoModel('LoopTrack', { title: Type.String(), artistIds: Type.Array(ObjectIdField()) })
const ARTISTS = 2000
const TRACKS = 1000
const PER_TRACK = 10

describeEachStore('a large populated page', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: Artist, collectionName: 'artists', prefix: '/artists' },
      { model: Track, collectionName: 'tracks', prefix: '/tracks', populates: [new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist })] },
    )
    const ids = Array.from({ length: ARTISTS }, () => new ObjectId())
    const artists = t.store.db.collection('artists')
    await Promise.all(ids.map((_id, i) => artists.insertOne({ _id, name: `artist ${i}` })))
    const tracks = t.store.db.collection('tracks')
    await Promise.all(
      Array.from({ length: TRACKS }, (_, i) => tracks.insertOne({ title: `track ${i}`, artistIds: Array.from({ length: PER_TRACK }, (_, j) => ids[(i * PER_TRACK + j) % ARTISTS]) })),
    )
  })
  after(() => t.close())

  it('lets the event loop run while it is populated and shown', async () => {
    let turns = 0
    let running = true
    const tick = () => {
      if (!running) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    const res = await t.app.inject({ method: 'GET', url: `/tracks?limit=${TRACKS}` })
    running = false
    assert.equal(res.statusCode, 200)
    const page = res.json() as Array<{ artistIds: Array<{ name: string }> }>
    assert.equal(page.length, TRACKS)
    assert.ok(page.every((track) => track.artistIds.length === PER_TRACK && track.artistIds.every((artist) => artist.name.startsWith('artist '))))
    assert.ok(turns > 0, 'the page was populated and shown in one synchronous stretch')
  })
})
