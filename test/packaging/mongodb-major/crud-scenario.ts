// One CRUD scenario through the router, on the `mongodb` driver this process resolves, against the
// engine's wire server. test/packaging/mongodb-majors.test.ts runs it in a child process once per
// supported major: as is (mongodb 7), and with register-mongodb6.mjs (every `mongodb` import is mongodb 6,
// as in an app that installed mongodb@6: the router's and the engine's peer is the app's driver).
// FMC_EXPECT_MONGODB_MAJOR says which major the parent meant. With FMC_APP_DRIVER=mongodb6 and no hook, the app
// hands the router a Db of its own mongodb 6 while the router and the engine import mongodb 7: two bson copies
// in one process, as when an app's driver and the router's resolve to different installs.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDPopulate } from 'fastify-mongo-crud'
import type { TestApp } from '../../harness/app.ts'
import { expectDetail } from '../../harness/expect.ts'
import { Artist, ArtistOut, buildRelationsApp, Track, TrackOut } from '../../harness/relations.ts'
import { createDoc, getJson } from '../../harness/seed.ts'
import { driverWireWith } from '../../harness/wire-store-modes.ts'

const appDriver = process.env['FMC_APP_DRIVER'] ?? 'mongodb'
const { MongoClient } = (await import(appDriver)) as typeof import('mongodb')
const driver = (await import(`${appDriver}/package.json`, { with: { type: 'json' } })).default as { version: string }

/** The engine behind this process's driver: a fresh in-memory engine and a wire server on a free loopback port. */
const driverWire = driverWireWith(MongoClient)

const populateArtists = new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist, modelOut: ArtistOut })

describe(`the router on a Db of mongodb ${driver.version}`, { timeout: 60_000 }, () => {
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(
      driverWire,
      {},
      { model: Artist, modelOut: ArtistOut, collectionName: 'artists', prefix: '/artists' },
      { model: Track, modelOut: TrackOut, collectionName: 'tracks', prefix: '/tracks' },
      {
        model: Track,
        modelOut: TrackOut,
        collectionName: 'tracks',
        prefix: '/populated-tracks',
        populates: [populateArtists],
      },
    )
  })
  after(() => t?.close())

  it('runs on the major the parent asked for', () => {
    assert.equal(driver.version.split('.')[0], process.env['FMC_EXPECT_MONGODB_MAJOR'])
  })

  it('creates, gets one, lists, patches and deletes a document', async () => {
    const artist = await createDoc(t.app, '/artists', { name: 'ann', secret: 's' })
    assert.deepEqual(artist, { id: artist.id, name: 'ann' })
    const track = await createDoc(t.app, '/tracks', { title: 'one', artistIds: [artist.id] })
    assert.deepEqual(track, { id: track.id, title: 'one', artistIds: [artist.id] })

    assert.deepEqual(await getJson(t.app, `/tracks/${track.id}`), track)
    assert.deepEqual(await getJson(t.app, '/tracks'), [track])

    const patched = await t.app.inject({ method: 'PATCH', url: `/tracks/${track.id}`, payload: { title: 'two' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json(), { ...track, title: 'two' })

    const removed = await t.app.inject({ method: 'DELETE', url: `/tracks/${track.id}` })
    assert.equal(removed.statusCode, 204, removed.body)
    expectDetail(await t.app.inject({ method: 'GET', url: `/tracks/${track.id}` }), 400, 'Document not found')
  })

  it('populates references', async () => {
    const artist = await createDoc(t.app, '/artists', { name: 'bob', secret: 's' })
    const track = await createDoc(t.app, '/tracks', { title: 'three', artistIds: [artist.id] })
    assert.deepEqual(await getJson(t.app, `/populated-tracks/${track.id}`), {
      id: track.id,
      title: 'three',
      artistIds: [{ id: artist.id, name: 'bob' }],
    })
  })
})
