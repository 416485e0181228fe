import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { Decimal128, Long, ObjectId } from 'mongodb'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { logCapture } from '../harness/log-capture.ts'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/** Documents written by another tool, an older model version or a non-finite number, seeded directly. */
const Item = MongoModel('MisfitItem', {
  name: Type.String(),
  email: Type.String(),
  age: Type.Optional(Type.Integer()),
  score: Type.Optional(Type.Number()),
  balance: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Type.String())),
  ownerId: Type.Optional(ObjectIdField()),
})
const ItemOut = MongoModelOut('MisfitItemOut', {
  name: Type.String(),
  email: Type.String(),
  age: Type.Optional(Type.Integer()),
  score: Type.Optional(Type.Number()),
  balance: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Type.String())),
  ownerId: Type.Optional(Type.String()),
})
const Owner = MongoModel('MisfitOwner', { name: Type.String(), rank: Type.Optional(Type.Integer()) })
const Child = MongoModel('MisfitChild', { itemId: ObjectIdField(), label: Type.String() })
const Note = MongoModel('MisfitNote', { text: Type.String() })
const NoteOut = MongoModelOut('MisfitNoteOut', { text: Type.String() })

describeEachStore('a stored document that does not fit the output model is served with what fits', (mode) => {
  let t: TestApp
  const log = logCapture()
  const ownerId = new ObjectId()
  const noteId = new ObjectId()
  const ids = { missing: new ObjectId(), types: new ObjectId(), numbers: new ObjectId(), nonFinite: new ObjectId(), good: new ObjectId() }
  before(async () => {
    t = await buildAppWith(
      mode,
      { fastify: { logger: { level: 'warn', stream: log.stream } } },
      { model: Owner, collectionName: 'misfit_owners', prefix: '/owners' },
      {
        model: Item,
        modelOut: ItemOut,
        collectionName: 'misfits',
        prefix: '/items',
        populates: [new CRUDPopulate({ field: 'ownerId', collection: 'misfit_owners', model: Owner })],
        lookups: [new CRUDLookup({ prefix: 'children', collectionName: 'misfit_children', model: Child, localField: '_id', foreignField: 'itemId' })],
        embeds: [new CRUDEmbed({ embedName: 'notes', model: Note, modelOut: NoteOut })],
      },
    )
    const db = t.store.db
    // The populated owner lacks its required name and has a float where an integer is declared.
    await db.collection('misfit_owners').insertOne({ _id: ownerId, rank: 1.5 })
    const items = db.collection('misfits')
    await items.insertOne({ _id: ids.missing, name: 'no email', ownerId })
    await items.insertOne({
      _id: ids.types,
      name: new Date(0),
      email: { address: 'x@example.com' },
      active: 'yes',
      tags: ['a', { b: 1 }, 3],
      // embedded items stored without _id, one also without its required text
      notes: [{ text: 'kept' }, { other: 1 }, { _id: noteId, text: 42.5 }],
    })
    await items.insertOne({ _id: ids.numbers, name: 'numbers', email: null, age: Long.fromNumber(42), score: Decimal128.fromString('1.50'), balance: Decimal128.fromString('10.25') })
    await items.insertOne({ _id: ids.nonFinite, name: 'non-finite', email: 'n@example.com', score: Number.NaN, age: Number.POSITIVE_INFINITY })
    await items.insertOne({ _id: ids.good, name: 'good', email: 'g@example.com', ownerId })
    for (const item of [ids.missing, ids.types, ids.good]) {
      await db.collection('misfit_children').insertOne({ itemId: item, label: 'child' })
    }
    await db.collection('misfit_children').insertOne({ itemId: ids.types, label: { text: 'x' }, extra: true })
  })
  after(() => t.close())

  /** Warnings logged since `from` that name the collection, the document and the field. */
  function warned(from: number, collection: string, id: string, field: string): boolean {
    return log
      .warnings()
      .slice(from)
      .some((line) => line.collection === collection && line._id === id && line.field === field && String(line.msg).includes(field))
  }

  async function get(url: string): Promise<{ status: number, body: Json }> {
    const res = await t.app.inject({ method: 'GET', url })
    return { status: res.statusCode, body: res.statusCode === 200 ? res.json() : res.body }
  }

  it('GET one leaves out a missing required field and logs which', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.missing}`)
    assert.equal(res.status, 200, res.body)
    assert.equal(res.body.name, 'no email')
    assert.ok(!('email' in res.body))
    assert.ok(warned(from, 'misfits', String(ids.missing), 'email'), JSON.stringify(log.warnings().slice(from)))
  })

  it('GET one converts what converts losslessly and leaves out the rest, never "[object Object]" or a coerced boolean', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.types}`)
    assert.equal(res.status, 200, res.body)
    assert.equal(res.body.name, '1970-01-01T00:00:00.000Z')
    assert.ok(!('email' in res.body), 'an object where a string is declared is left out')
    assert.ok(!('active' in res.body), 'a string where a boolean is declared is left out')
    assert.deepEqual(res.body.tags, ['a', '3'])
    for (const field of ['email', 'active', 'tags.1', 'tags.2']) assert.ok(warned(from, 'misfits', String(ids.types), field), field)
  })

  it('GET one serves int64 and decimal numbers as the declared types, and leaves out null where null is not allowed', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.numbers}`)
    assert.equal(res.status, 200, res.body)
    assert.equal(res.body.age, 42)
    assert.equal(res.body.score, 1.5)
    assert.equal(res.body.balance, '10.25')
    assert.ok(!('email' in res.body))
    assert.ok(warned(from, 'misfits', String(ids.numbers), 'email'))
  })

  it('GET one leaves out non-finite numbers', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.nonFinite}`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body, { id: String(ids.nonFinite), name: 'non-finite', email: 'n@example.com' })
    assert.ok(warned(from, 'misfits', String(ids.nonFinite), 'score'))
    assert.ok(warned(from, 'misfits', String(ids.nonFinite), 'age'))
  })

  it('a populated document that does not fit is served with what fits', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.good}`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body.ownerId, { id: String(ownerId) }, 'no name (required), no float rank (an integer is declared)')
    assert.ok(warned(from, 'misfits', String(ids.good), 'ownerId.rank'), JSON.stringify(log.warnings().slice(from)))
  })

  for (const [name, query] of [
    ['a paged list', '?limit=50'],
    ['a streamed list', ''],
  ] as const) {
    it(`${name} answers 200 with every document, each with what fits`, async () => {
      const from = log.warnings().length
      const res = await get(`/items${query}`)
      assert.equal(res.status, 200, res.body)
      assert.equal(res.body.length, 5)
      const byId = new Map<string, Json>(res.body.map((doc: Json) => [doc.id, doc]))
      assert.ok(!('email' in byId.get(String(ids.missing))))
      assert.deepEqual(byId.get(String(ids.types)).tags, ['a', '3'])
      assert.ok(!('score' in byId.get(String(ids.nonFinite))))
      assert.equal(byId.get(String(ids.good)).email, 'g@example.com')
      assert.ok(warned(from, 'misfits', String(ids.missing), 'email'))
      assert.ok(warned(from, 'misfits', String(ids.types), 'email'))
    })
  }

  it('the owners router serves the owner without the unfitting fields', async () => {
    const res = await get(`/owners/${ownerId}`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body, { id: String(ownerId) })
  })

  for (const [name, query] of [
    ['paged', '?limit=10'],
    ['streamed', ''],
  ] as const) {
    it(`a lookup child list (${name}) serves children with what fits`, async () => {
      const from = log.warnings().length
      const res = await get(`/items/${ids.types}/children${query}`)
      assert.equal(res.status, 200, res.body)
      assert.equal(res.body.length, 2)
      const odd = res.body.find((child: Json) => child.label === undefined)
      assert.ok(odd !== undefined, JSON.stringify(res.body))
      assert.ok(!('extra' in odd))
      assert.ok(warned(from, 'misfit_children', odd.id, 'label'), JSON.stringify(log.warnings().slice(from)))
    })
  }

  it('a lookup child GET serves the child with what fits', async () => {
    const list = await get(`/items/${ids.types}/children?limit=10`)
    const odd = list.body.find((child: Json) => child.label === undefined)
    const res = await get(`/items/${ids.types}/children/${odd.id}`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body, { id: odd.id, itemId: String(ids.types) })
  })

  it('embedded items stored without _id are listed without id, with a warning naming the parent', async () => {
    const from = log.warnings().length
    const res = await get(`/items/${ids.types}/notes`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body, [{ text: 'kept' }, {}, { id: String(noteId), text: '42.5' }])
    assert.ok(warned(from, 'misfits', String(ids.types), 'notes.id'), JSON.stringify(log.warnings().slice(from)))
    assert.ok(warned(from, 'misfits', String(ids.types), 'notes.text'))
  })

  it('an embedded item GET serves the item with what fits', async () => {
    const from = log.warnings().length
    await t.store.db.collection('misfits').updateOne({ _id: ids.missing }, { $set: { notes: [{ _id: noteId, text: ['not', 'text'] }] } })
    const res = await get(`/items/${ids.missing}/notes/${noteId}`)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.body, { id: String(noteId) })
    assert.ok(warned(from, 'misfits', String(ids.missing), 'notes.text'), JSON.stringify(log.warnings().slice(from)))
  })
})
