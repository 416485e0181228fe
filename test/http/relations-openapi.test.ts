import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, HTTPException } from 'fastify-mongo-crud'
import type { TestApp } from '../harness/app.ts'
import {
  Address,
  Artist,
  ArtistOut,
  Author,
  buildRelationsApp,
  Label,
  LabelOut,
  Message,
  Phone,
  Track,
  TrackOut,
} from '../harness/relations.ts'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /openapi.json documents relation routes', (mode) => {
  let t: TestApp
  let spec: Json
  before(async () => {
    const requireAdmin = async () => {
      throw new HTTPException(403, 'Admin required')
    }
    t = await buildRelationsApp(
      mode,
      {},
      {
        model: Author,
        collectionName: 'authors',
        prefix: '/authors',
        tags: ['authors'],
        lookups: [
          new CRUDLookup({
            model: Message,
            collectionName: 'messages',
            prefix: 'messages',
            localField: '_id',
            foreignField: 'authorId',
            dependenciesDeleteOne: [requireAdmin],
          }),
        ],
        embeds: [
          new CRUDEmbed({ model: Address, embedName: 'addresses', dependenciesDeleteOne: [requireAdmin] }),
          new CRUDEmbed({ model: Phone, embedName: 'phones' }),
        ],
      },
      {
        model: Track,
        modelOut: TrackOut,
        collectionName: 'tracks',
        prefix: '/tracks',
        tags: ['tracks'],
        populates: [
          new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist, modelOut: ArtistOut }),
          new CRUDPopulate({ field: 'labelId', collection: 'labels', model: Label, modelOut: LabelOut }),
        ],
      },
    )
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200, res.body)
    spec = res.json()
  })
  after(() => t.close())

  const operation = (path: string, method: string) => {
    const op = spec.paths[path]?.[method]
    assert.ok(op, `${method.toUpperCase()} ${path} is not documented`)
    return op
  }
  const methodsOf = (path: string) => Object.keys(spec.paths[path] ?? {}).filter((key) => key !== 'head').sort()
  const codes = (path: string, method: string) => Object.keys(operation(path, method).responses).sort()
  const pathParams = (path: string, method: string) =>
    (operation(path, method).parameters as { name: string, in: string, required: boolean }[])
      .filter((p) => p.in === 'path')
      .map((p) => `${p.name}${p.required ? '' : '?'}`)
  const bodyRef = (path: string, method: string) =>
    operation(path, method).requestBody?.content?.['application/json']?.schema?.$ref
  const okRef = (path: string, method: string, status: string) =>
    operation(path, method).responses[status]?.content?.['application/json']?.schema

  const lookupList = '/authors/{id}/messages'
  const lookupOne = '/authors/{id}/messages/{child_id}'

  it('lists every lookup route', () => {
    assert.deepEqual(methodsOf(lookupList), ['get', 'post'])
    assert.deepEqual(methodsOf(lookupOne), ['delete', 'get', 'patch', 'put'])
  })

  it('lists every embed route for each embed, without PUT', () => {
    for (const name of ['addresses', 'phones']) {
      assert.deepEqual(methodsOf(`/authors/{id}/${name}`), ['get', 'post'])
      assert.deepEqual(methodsOf(`/authors/{id}/${name}/{embed_id}`), ['delete', 'get', 'patch'])
    }
  })

  it('documents the path parameters of child routes', () => {
    for (const method of ['get', 'post']) assert.deepEqual(pathParams(lookupList, method), ['id'])
    for (const method of ['get', 'put', 'patch', 'delete']) assert.deepEqual(pathParams(lookupOne, method), ['id', 'child_id'])
    for (const method of ['get', 'post']) assert.deepEqual(pathParams('/authors/{id}/addresses', method), ['id'])
    for (const method of ['get', 'patch', 'delete']) {
      assert.deepEqual(pathParams('/authors/{id}/addresses/{embed_id}', method), ['id', 'embed_id'])
    }
  })

  it("documents the child lists' query parameters", () => {
    const common = ['filters', 'limit', 'order_by', 'skip', 'sort_by', 'sort_dir']
    // Every list takes fields= and cursor (docs/capabilities.md).
    for (const [path, names] of [[lookupList, ['cursor', 'fields', ...common]], ['/authors/{id}/addresses', ['cursor', 'fields', ...common]]] as const) {
      const params = operation(path, 'get').parameters as { name: string, in: string }[]
      assert.deepEqual(
        params
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
        names,
      )
    }
  })

  it('documents the request bodies of child writes', () => {
    assert.equal(bodyRef(lookupList, 'post'), '#/components/schemas/MessageCreate')
    assert.equal(bodyRef(lookupOne, 'put'), '#/components/schemas/MessageCreate')
    assert.equal(bodyRef(lookupOne, 'patch'), '#/components/schemas/MessagePatch')
    assert.equal(bodyRef('/authors/{id}/addresses', 'post'), '#/components/schemas/Address')
    assert.equal(bodyRef('/authors/{id}/addresses/{embed_id}', 'patch'), '#/components/schemas/AddressPatch')
    // the create body lets the foreign field out: it comes from the path
    const create = spec.components.schemas.MessageCreate
    assert.deepEqual([...create.required].sort(), ['text'])
    assert.ok(create.properties.authorId, 'MessageCreate lacks authorId')
  })

  it('documents the child responses with their status codes (403 where dependencies, 304 and 412 of conditional requests)', () => {
    assert.deepEqual(codes(lookupList, 'get'), ['200', '400', '422'])
    assert.deepEqual(codes(lookupList, 'post'), ['201', '400', '412', '422'])
    assert.deepEqual(codes(lookupOne, 'get'), ['200', '304', '400', '422'])
    assert.deepEqual(codes(lookupOne, 'put'), ['200', '400', '412', '422'])
    assert.deepEqual(codes(lookupOne, 'patch'), ['200', '400', '412', '422'])
    assert.deepEqual(codes(lookupOne, 'delete'), ['204', '400', '403', '412', '422'])
    assert.deepEqual(codes('/authors/{id}/addresses', 'get'), ['200', '400', '422'])
    assert.deepEqual(codes('/authors/{id}/addresses', 'post'), ['201', '400', '412', '422'])
    assert.deepEqual(codes('/authors/{id}/addresses/{embed_id}', 'get'), ['200', '304', '400', '422'])
    assert.deepEqual(codes('/authors/{id}/addresses/{embed_id}', 'patch'), ['200', '400', '412', '422'])
    assert.deepEqual(codes('/authors/{id}/addresses/{embed_id}', 'delete'), ['204', '400', '403', '412', '422'])
    assert.deepEqual(codes('/authors/{id}/phones/{embed_id}', 'delete'), ['204', '400', '412', '422'])
  })

  it('documents the child response bodies with the child models', () => {
    assert.deepEqual(okRef(lookupList, 'get', '200').items, { $ref: '#/components/schemas/Message' })
    assert.equal(okRef(lookupList, 'post', '201').$ref, '#/components/schemas/Message')
    assert.equal(okRef('/authors/{id}/phones/{embed_id}', 'get', '200').$ref, '#/components/schemas/Phone')
  })

  it("tags every child route with the parent's tags", () => {
    for (const [path, methods] of [
      [lookupList, ['get', 'post']],
      [lookupOne, ['get', 'put', 'patch', 'delete']],
      ['/authors/{id}/addresses', ['get', 'post']],
      ['/authors/{id}/addresses/{embed_id}', ['get', 'patch', 'delete']],
      ['/authors/{id}/phones', ['get', 'post']],
      ['/authors/{id}/phones/{embed_id}', ['get', 'patch', 'delete']],
    ] as const) {
      for (const method of methods) assert.deepEqual(operation(path, method).tags, ['authors'], `${method} ${path}`)
    }
  })

  it('documents populated GET responses with a <Out>Populated component', () => {
    assert.deepEqual(okRef('/tracks', 'get', '200').items, { $ref: '#/components/schemas/TrackOutPopulated' })
    assert.equal(okRef('/tracks/{id}', 'get', '200').$ref, '#/components/schemas/TrackOutPopulated')
    const populated = spec.components.schemas.TrackOutPopulated
    assert.deepEqual(populated.properties.artistIds, {
      type: 'array',
      items: { $ref: '#/components/schemas/ArtistOut' },
    })
    // a single reference: LabelOut (by $ref or inline, without hidden fields), or null
    const label = JSON.stringify(populated.properties.labelId)
    assert.ok(label.includes('LabelOut'), label)
    assert.ok(label.includes('"null"'), label)
    assert.ok(!label.includes('secret'), label)
    assert.deepEqual(Object.keys(spec.components.schemas.ArtistOut.properties).sort(), ['id', 'name'])
  })

  it('documents write bodies of a populated router with ids, and write answers like GET one', () => {
    assert.equal(okRef('/tracks', 'post', '201').$ref, '#/components/schemas/TrackOutPopulated')
    assert.equal(okRef('/tracks/{id}', 'put', '200').$ref, '#/components/schemas/TrackOutPopulated')
    assert.equal(okRef('/tracks/{id}', 'patch', '200').$ref, '#/components/schemas/TrackOutPopulated')
    assert.equal(bodyRef('/tracks', 'post'), '#/components/schemas/Track')
    assert.equal(spec.components.schemas.Track.properties.artistIds.type, 'array')
    assert.equal(spec.components.schemas.Track.properties.artistIds.items.type, 'string')
  })
})
