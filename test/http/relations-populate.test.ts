import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDPopulate, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { filtersQuery, type RouterOptions, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError, expectEntryAt } from '../harness/expect.ts'
import {
  Artist,
  ArtistOut,
  buildRelationsApp,
  Label,
  LabelOut,
  StoreCallCounter,
  Track,
  TrackOut,
  TrackTitleOut,
} from '../harness/relations.ts'
import { createDoc, getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const artistsRouter: RouterOptions = { model: Artist, collectionName: 'artists', prefix: '/artists' }
const labelsRouter: RouterOptions = { model: Label, collectionName: 'labels', prefix: '/labels' }
/** The tracks collection, unpopulated: what is stored, ids and all. */
const rawTracksRouter: RouterOptions = { model: Track, collectionName: 'tracks', prefix: '/raw-tracks' }

const populateArtists = new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist, modelOut: ArtistOut })
const populateLabel = new CRUDPopulate({ field: 'labelId', collection: 'labels', model: Label, modelOut: LabelOut })
/** No populate modelOut: the label is shown through its input model, `secret` included. */
const populateLabelAsStored = new CRUDPopulate({ field: 'labelId', collection: 'labels', model: Label })

/** How an artist or label looks through its output model: no `secret`. */
const shown = (doc: Json) => ({ id: doc.id, name: doc.name })

async function seedArtists(t: TestApp, names: string[]): Promise<Json[]> {
  return seedDocs(
    t.app,
    '/artists',
    names.map((name) => ({ name, secret: `${name}-secret` })),
  )
}

describeEachStore('populates with a router modelOut', (mode) => {
  let t: TestApp
  let artists: Json[]
  let label: Json
  before(async () => {
    t = await buildRelationsApp(mode, {}, artistsRouter, labelsRouter, rawTracksRouter, {
      model: Track,
      modelOut: TrackOut,
      collectionName: 'tracks',
      prefix: '/tracks',
      populates: [populateArtists, populateLabel],
    })
    artists = await seedArtists(t, ['ann', 'ben', 'cid'])
    label = await createDoc(t.app, '/labels', { name: 'blue', secret: 'blue-secret' })
  })
  after(() => t.close())

  it('GET one replaces the ids of an array field by the documents, in id order, through the modelOut', async () => {
    const [ann, ben, cid] = artists
    const track = await createDoc(t.app, '/tracks', { title: 'one', artistIds: [cid.id, ann.id, ben.id] })
    const got = await getJson(t.app, `/tracks/${track.id}`)
    assert.deepEqual(got, { id: track.id, title: 'one', artistIds: [shown(cid), shown(ann), shown(ben)] })
  })

  it('GET one replaces a single id field by its document', async () => {
    const track = await createDoc(t.app, '/tracks', { title: 'single', artistIds: [], labelId: label.id })
    const got = await getJson(t.app, `/tracks/${track.id}`)
    assert.deepEqual(got, { id: track.id, title: 'single', artistIds: [], labelId: { id: label.id, name: 'blue' } })
  })

  it('GET list populates the array field of every document of the page', async () => {
    const [ann, ben, cid] = artists
    const first = await createDoc(t.app, '/tracks', { title: 'list-1', artistIds: [ben.id] })
    const second = await createDoc(t.app, '/tracks', { title: 'list-2', artistIds: [cid.id, ann.id] })
    const url = `/tracks${filtersQuery({ title: { $in: ['list-1', 'list-2'] } }, { sort_by: 'title' })}`
    const expected = [
      { id: first.id, title: 'list-1', artistIds: [shown(ben)] },
      { id: second.id, title: 'list-2', artistIds: [shown(cid), shown(ann)] },
    ]
    assert.deepEqual(await getJson(t.app, url), expected)
    assert.deepEqual(await getJson(t.app, `${url}&limit=10`), expected)
  })

  it('GET list populates the single id field of every document of the page', async () => {
    const first = await createDoc(t.app, '/tracks', { title: 'single-list-1', artistIds: [], labelId: label.id })
    const second = await createDoc(t.app, '/tracks', { title: 'single-list-2', artistIds: [] })
    const url = `/tracks${filtersQuery({ title: { $in: ['single-list-1', 'single-list-2'] } }, { sort_by: 'title', limit: 10 })}`
    assert.deepEqual(await getJson(t.app, url), [
      { id: first.id, title: 'single-list-1', artistIds: [], labelId: { id: label.id, name: 'blue' } },
      { id: second.id, title: 'single-list-2', artistIds: [] },
    ])
  })

  it('never shows the hidden fields of the populated model', async () => {
    await createDoc(t.app, '/tracks', { title: 'hidden', artistIds: artists.map((a) => a.id), labelId: label.id })
    const res = await t.app.inject({ method: 'GET', url: '/tracks' })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(!res.body.includes('secret'), `a secret leaked: ${res.body}`)
  })

  it('drops ids whose documents no longer exist, and answers null for a missing single reference', async () => {
    const [gone, kept] = await seedArtists(t, ['gone', 'kept'])
    const goneLabel = await createDoc(t.app, '/labels', { name: 'gone-label', secret: 's' })
    const track = await createDoc(t.app, '/tracks', {
      title: 'dangling',
      artistIds: [gone.id, kept.id, gone.id],
      labelId: goneLabel.id,
    })
    for (const url of [`/artists/${gone.id}`, `/labels/${goneLabel.id}`]) {
      assert.equal((await t.app.inject({ method: 'DELETE', url })).statusCode, 204)
    }
    assert.deepEqual(await getJson(t.app, `/tracks/${track.id}`), {
      id: track.id,
      title: 'dangling',
      artistIds: [shown(kept)],
      labelId: null,
    })
    // the stored ids are untouched: populating is a read-side view
    const raw = await getJson(t.app, `/raw-tracks/${track.id}`)
    assert.deepEqual(raw.artistIds, [gone.id, kept.id, gone.id])
    assert.equal(raw.labelId, goneLabel.id)
  })

  it('keeps a repeated id as many times as it is listed', async () => {
    const [ann, ben] = artists
    const track = await createDoc(t.app, '/tracks', { title: 'repeat', artistIds: [ann.id, ben.id, ann.id] })
    const got = await getJson(t.app, `/tracks/${track.id}`)
    assert.deepEqual(got.artistIds, [shown(ann), shown(ben), shown(ann)])
  })

  it('POST accepts ids and answers like GET one, references populated', async () => {
    const [ann, ben] = artists
    const res = await t.app.inject({
      method: 'POST',
      url: '/tracks',
      payload: { title: 'posted', artistIds: [ben.id, ann.id], labelId: label.id },
    })
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json()
    assert.deepEqual(created, { id: created.id, title: 'posted', artistIds: [shown(ben), shown(ann)], labelId: shown(label) })
    assert.deepEqual(created, await getJson(t.app, `/tracks/${created.id}`))
    assert.deepEqual((await getJson(t.app, `/raw-tracks/${created.id}`)).artistIds, [ben.id, ann.id], 'ids are what is stored')
  })

  it('PUT accepts ids and answers like GET one', async () => {
    const [ann, ben, cid] = artists
    const track = await createDoc(t.app, '/tracks', { title: 'put', artistIds: [ann.id] })
    const res = await t.app.inject({
      method: 'PUT',
      url: `/tracks/${track.id}`,
      payload: { title: 'put-2', artistIds: [cid.id, ben.id] },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: track.id, title: 'put-2', artistIds: [shown(cid), shown(ben)] })
    assert.deepEqual(res.json(), await getJson(t.app, `/tracks/${track.id}`))
  })

  it('PATCH accepts ids and answers like GET one', async () => {
    const [ann, , cid] = artists
    const track = await createDoc(t.app, '/tracks', { title: 'patch', artistIds: [ann.id] })
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/tracks/${track.id}`,
      payload: { artistIds: [cid.id], labelId: label.id },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: track.id, title: 'patch', artistIds: [shown(cid)], labelId: shown(label) })
  })

  it('refuses populated documents in place of ids in a write (422), and writes nothing', async () => {
    const [ann] = artists
    const res = await t.app.inject({
      method: 'POST',
      url: '/tracks',
      payload: { title: 'documents', artistIds: [{ id: ann.id, name: 'ann' }] },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'artistIds', 0])
    const url = `/raw-tracks${filtersQuery({ title: 'documents' })}`
    assert.deepEqual(await getJson(t.app, url), [])
  })
})

/** The router's output model types the populated field as a list of the populated output model. */
const TrackDocsOut = MongoModelOut('TrackDocsOut', {
  title: Type.String(),
  artistIds: Type.Array(ArtistOut),
  labelId: Type.Optional(Type.Union([LabelOut, Type.Null()])),
})

describeEachStore('writes through a modelOut that types populated fields as documents', (mode) => {
  let t: TestApp
  let ann: Json
  let label: Json
  before(async () => {
    t = await buildRelationsApp(mode, {}, artistsRouter, labelsRouter, {
      model: Track,
      modelOut: TrackDocsOut,
      collectionName: 'tracks',
      prefix: '/tracks',
      populates: [populateArtists, populateLabel],
    })
    ;[ann] = await seedArtists(t, ['ann'])
    label = await createDoc(t.app, '/labels', { name: 'green', secret: 'green-secret' })
  })
  after(() => t.close())

  it('answers POST 201, PUT and PATCH 200 in the shape of GET one', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/tracks', payload: { title: 'a', artistIds: [ann.id], labelId: label.id } })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id
    const expected = { id, title: 'a', artistIds: [shown(ann)], labelId: shown(label) }
    assert.deepEqual(created.json(), expected)
    assert.deepEqual(await getJson(t.app, `/tracks/${id}`), expected)
    const replaced = await t.app.inject({ method: 'PUT', url: `/tracks/${id}`, payload: { title: 'b', artistIds: [ann.id] } })
    assert.equal(replaced.statusCode, 200, replaced.body)
    assert.deepEqual(replaced.json(), { id, title: 'b', artistIds: [shown(ann)] })
    const patched = await t.app.inject({ method: 'PATCH', url: `/tracks/${id}`, payload: { labelId: label.id } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json(), { id, title: 'b', artistIds: [shown(ann)], labelId: shown(label) })
  })
})

describeEachStore('populates without a router modelOut', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(mode, {}, artistsRouter, labelsRouter, {
      model: Track,
      collectionName: 'tracks',
      prefix: '/tracks',
      populates: [
        populateArtists,
        // no populate modelOut: the populate's model shapes the documents, `secret` included
        populateLabelAsStored,
      ],
    })
  })
  after(() => t.close())

  it('answers nested documents in place of ids, on GET one and GET list', async () => {
    const [ann, ben] = await seedArtists(t, ['ann', 'ben'])
    const label = await createDoc(t.app, '/labels', { name: 'red', secret: 'red-secret' })
    const track = await createDoc(t.app, '/tracks', { title: 'nested', artistIds: [ben.id, ann.id], labelId: label.id })
    const expected = {
      id: track.id,
      title: 'nested',
      artistIds: [shown(ben), shown(ann)],
      labelId: { id: label.id, name: 'red', secret: 'red-secret' },
    }
    assert.deepEqual(await getJson(t.app, `/tracks/${track.id}`), expected)
    assert.deepEqual(await getJson(t.app, '/tracks'), [expected])
  })
})

describeEachStore('a router modelOut that leaves the populated field out', (mode) => {
  let t: TestApp
  const counter = new StoreCallCounter()
  before(async () => {
    t = await buildRelationsApp(mode, { wrapDb: (db) => counter.wrap(db) }, artistsRouter, labelsRouter, {
      model: Track,
      modelOut: TrackTitleOut,
      collectionName: 'tracks',
      prefix: '/tracks',
      populates: [populateArtists, populateLabelAsStored],
    })
  })
  after(() => t.close())

  it('neither populates nor shows the field, and never queries its collection', async () => {
    const [ann] = await seedArtists(t, ['ann'])
    const label = await createDoc(t.app, '/labels', { name: 'green', secret: 's' })
    const track = await createDoc(t.app, '/tracks', { title: 'quiet', artistIds: [ann.id], labelId: label.id })
    counter.reset()
    const expected = { id: track.id, title: 'quiet', labelId: { id: label.id, name: 'green', secret: 's' } }
    assert.deepEqual(await getJson(t.app, `/tracks/${track.id}`), expected)
    assert.deepEqual(await getJson(t.app, '/tracks?limit=10'), [expected])
    assert.equal(counter.count('artists', 'find'), 0, JSON.stringify(counter.snapshot()))
    assert.equal(counter.count('artists', 'findOne'), 0, JSON.stringify(counter.snapshot()))
  })
})

describeEachStore('one batched query per populate field per page', (mode) => {
  let t: TestApp
  const counter = new StoreCallCounter()
  let artists: Json[]
  let labels: Json[]
  let tracks: Json[]
  before(async () => {
    t = await buildRelationsApp(mode, { wrapDb: (db) => counter.wrap(db) }, artistsRouter, labelsRouter, {
      model: Track,
      modelOut: TrackOut,
      collectionName: 'tracks',
      prefix: '/tracks',
      populates: [populateArtists, populateLabelAsStored],
    })
    artists = await seedArtists(
      t,
      Array.from({ length: 12 }, (_, i) => `artist-${String(i).padStart(2, '0')}`),
    )
    labels = await seedDocs(
      t.app,
      '/labels',
      Array.from({ length: 5 }, (_, i) => ({ name: `label-${i}`, secret: 's' })),
    )
    tracks = await seedDocs(
      t.app,
      '/tracks',
      Array.from({ length: 100 }, (_, i) => ({
        title: `track-${String(i).padStart(3, '0')}`,
        artistIds: [artists[(i * 5) % 12].id, artists[(i + 1) % 12].id],
        labelId: labels[i % 5].id,
      })),
    )
  })
  after(() => t.close())

  const expectedTrack = (i: number) => ({
    id: tracks[i].id,
    title: `track-${String(i).padStart(3, '0')}`,
    artistIds: [shown(artists[(i * 5) % 12]), shown(artists[(i + 1) % 12])],
    labelId: labels[i % 5],
  })

  for (const limit of [100, 1000]) {
    it(`a page of 100 documents with 2 populates (limit=${limit}) costs 1 find on the main collection and 1 per populate`, async () => {
      counter.reset()
      const page = await getJson(t.app, `/tracks?limit=${limit}&sort_by=title`)
      assert.equal(page.length, 100)
      assert.deepEqual(
        page,
        tracks.map((_, i) => expectedTrack(i)),
      )
      assert.deepEqual(
        {
          tracks: counter.count('tracks', 'find'),
          artists: counter.count('artists', 'find'),
          labels: counter.count('labels', 'find'),
          artistsFindOne: counter.count('artists', 'findOne'),
          labelsFindOne: counter.count('labels', 'findOne'),
        },
        { tracks: 1, artists: 1, labels: 1, artistsFindOne: 0, labelsFindOne: 0 },
        JSON.stringify(counter.snapshot()),
      )
    })
  }

  it('GET one costs 1 find per populate field', async () => {
    counter.reset()
    assert.deepEqual(await getJson(t.app, `/tracks/${tracks[7].id}`), expectedTrack(7))
    assert.equal(counter.count('artists', 'find'), 1, JSON.stringify(counter.snapshot()))
    assert.equal(counter.count('labels', 'find'), 1, JSON.stringify(counter.snapshot()))
    assert.equal(counter.count('artists', 'findOne') + counter.count('labels', 'findOne'), 0)
  })
})

describeEachStore('populate registration errors', (mode) => {
  it("rejects a populate whose collection is the router's own collection", async () => {
    await assert.rejects(
      buildRelationsApp(mode, {}, {
        model: Track,
        collectionName: 'tracks',
        prefix: '/tracks',
        populates: [new CRUDPopulate({ field: 'artistIds', collection: 'tracks', model: Track })],
      }),
      /own collection 'tracks'/,
    )
  })

  for (const field of ['title', 'missingField']) {
    it(`rejects a populate field that is not an ObjectId or ObjectId-array field (${field})`, async () => {
      await assert.rejects(
        buildRelationsApp(mode, {}, {
          model: Track,
          collectionName: 'tracks',
          prefix: '/tracks',
          populates: [new CRUDPopulate({ field, collection: 'artists', model: Artist })],
        }),
        new RegExp(`populate field '${field}' must be a field of the model declared as ObjectIdField\\(\\)`),
      )
    })
  }

  it('rejects an array of plain strings as a populate field', async () => {
    const Tagged = MongoModel('Tagged', { tags: Type.Array(Type.String()) })
    await assert.rejects(
      buildRelationsApp(mode, {}, {
        model: Tagged,
        collectionName: 'tagged',
        prefix: '/tagged',
        populates: [new CRUDPopulate({ field: 'tags', collection: 'artists', model: Artist })],
      }),
      /populate field 'tags'/,
    )
  })
})

describe('new CRUDPopulate(...) messages', () => {
  type Options = ConstructorParameters<typeof CRUDPopulate>[0]
  const populate = (options: Record<string, unknown>) => new CRUDPopulate(options as unknown as Options)
  const valid = { field: 'artistIds', collection: 'artists', model: Artist }

  it("throws \"CRUDPopulate: 'field' must be a non-empty string\" for a blank field", () => {
    assert.throws(() => populate({ ...valid, field: '   ' }), { message: "CRUDPopulate: 'field' must be a non-empty string" })
  })

  it("throws \"CRUDPopulate: 'collection' must be a non-empty string\" for a null collection", () => {
    assert.throws(() => populate({ ...valid, collection: null }), {
      message: "CRUDPopulate: 'collection' must be a non-empty string",
    })
  })

  it("throws naming 'model' for a model made by MongoModelOut", () => {
    assert.throws(() => populate({ ...valid, model: ArtistOut }), /^Error: CRUDPopulate: 'model'|CRUDPopulate: 'model'/)
  })

  it("throws naming 'modelOut' for an input model given as modelOut", () => {
    assert.throws(() => populate({ ...valid, modelOut: Artist }), /CRUDPopulate: 'modelOut'/)
  })
})
