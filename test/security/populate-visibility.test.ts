import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDPopulate, type DriverDb, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { logCapture } from '../harness/log-capture.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const Author = MongoModel('PvAuthor', { name: Type.String(), passwordHash: Type.String() })
const AuthorOut = MongoModelOut('PvAuthorOut', { name: Type.String() })
const Book = MongoModel('PvBook', { title: Type.String(), authorId: ObjectIdField(), coauthorIds: Type.Array(ObjectIdField()) })

/** Populates of `authorId` (one) and `coauthorIds` (many), both without a modelOut. */
const populates = (collection: string) => [
  new CRUDPopulate({ field: 'authorId', collection, model: Author }),
  new CRUDPopulate({ field: 'coauthorIds', collection, model: Author }),
]

for (const order of ['populating router first', 'authors router first'] as const) {
describeEachStore(`a populate without modelOut shows what the router of its collection shows (${order})`, (mode) => {
  let t: TestApp
  let book: Json
  const log = logCapture()
  before(async () => {
    const books = { model: Book, collectionName: 'pv_books', prefix: '/books', populates: populates('pv_authors') }
    const authors = { model: Author, modelOut: AuthorOut, collectionName: 'pv_authors', prefix: '/authors' }
    const routers = order === 'populating router first' ? [books, authors] : [authors, books]
    t = await buildAppWith(mode, { fastify: { logger: { level: 'warn', stream: log.stream } } }, ...routers)
    const author = await createDoc(t.app, '/authors', { name: 'ada', passwordHash: 'secret-hash' })
    book = await createDoc(t.app, '/books', { title: 'notes', authorId: author.id, coauthorIds: [author.id] })
  })
  after(() => t.close())

  it('GET one does not show the hidden field of a populated document', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/books/${book.id}` })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(!res.body.includes('secret-hash'), res.body)
    assert.deepEqual(Object.keys(res.json().authorId).sort(), ['id', 'name'])
    assert.deepEqual(Object.keys(res.json().coauthorIds[0]).sort(), ['id', 'name'])
  })

  it('paged and streamed lists do not show it either', async () => {
    for (const query of ['?limit=10', '']) {
      const res = await t.app.inject({ method: 'GET', url: `/books${query}` })
      assert.equal(res.statusCode, 200, res.body)
      assert.ok(!res.body.includes('secret-hash'), res.body)
      assert.equal(res.json()[0].authorId.name, 'ada')
    }
  })

  it('OpenAPI documents the populated documents without the hidden field', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const populated = spec.components.schemas.PvBookPopulated
    assert.ok(populated !== undefined, Object.keys(spec.components.schemas).join(','))
    assert.ok(!JSON.stringify(populated).includes('passwordHash'), JSON.stringify(populated))
  })

  it('logs no warning: the populate shows what /authors shows', () => {
    assert.ok(!log.lines.some((line) => String(line.msg).includes('CRUDPopulate')), JSON.stringify(log.lines))
  })
})
}

describeEachStore('a populate without modelOut whose collection no router hides anything from', (mode) => {
  let t: TestApp
  const log = logCapture()
  before(async () => {
    t = await buildAppWith(
      mode,
      { fastify: { logger: { level: 'warn', stream: log.stream } } },
      { model: Book, collectionName: 'pv_books', prefix: '/books', populates: populates('pv_people') },
    )
  })
  after(() => t.close())

  it('warns at startup, naming the populate and every field it exposes', () => {
    const warning = log.lines.find((line) => line.level === 40 && String(line.msg).includes("CRUDPopulate of 'authorId'"))
    assert.ok(warning !== undefined, JSON.stringify(log.lines))
    assert.match(warning.msg, /name, passwordHash/)
    assert.match(warning.msg, /pv_people/)
  })
})

describeEachStore('a populate finds the router of its collection through another handle of the same database', (mode) => {
  let t: TestApp
  let book: Json
  const log = logCapture()
  before(async () => {
    // The driver's `client.db(name)` returns a new handle on every call: routers of one database often
    // hold different handle objects. A second handle is a distinct object reaching the same database.
    const otherHandle = (db: DriverDb): DriverDb =>
      new Proxy(db, {
        get(target, property) {
          const value = Reflect.get(target, property, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    t = await buildAppWith(
      mode,
      { fastify: { logger: { level: 'warn', stream: log.stream } } },
      { model: Author, modelOut: AuthorOut, collectionName: 'pv_authors', prefix: '/authors' },
      { model: Book, collectionName: 'pv_books', prefix: '/books', populates: populates('pv_authors'), handle: otherHandle },
    )
    const author = await createDoc(t.app, '/authors', { name: 'ada', passwordHash: 'secret-hash' })
    book = await createDoc(t.app, '/books', { title: 'notes', authorId: author.id, coauthorIds: [author.id] })
  })
  after(() => t.close())

  it('hides what the authors router hides, and warns about nothing', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/books/${book.id}` })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(!res.body.includes('secret-hash'), res.body)
    assert.ok(!log.lines.some((line) => String(line.msg).includes('CRUDPopulate')), JSON.stringify(log.lines))
  })
})
