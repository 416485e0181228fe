import assert from 'node:assert/strict'
import { after, before, beforeEach, it } from 'node:test'
import { Binary, Decimal128, Long, ObjectId } from 'mongodb'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp, KEY, ns } from './data-api-harness.ts'

const EJSON = { apiKey: KEY, 'content-type': 'application/ejson', accept: 'application/ejson' }
const ID = '629971c0d71aad65bd59c595'

describeEachStore('Data API Extended JSON types', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode)
  })
  after(() => t.close())
  beforeEach(async () => {
    await t.call('deleteMany', { ...ns(), filter: {} })
  })

  /** Inserts `document` (canonical or relaxed Extended JSON), then reads it back in JSON and in canonical Extended JSON. */
  async function roundTrip(document: Json, projection: Json): Promise<{ json: Json, ejson: Json }> {
    const inserted = await t.call('insertOne', { ...ns(), document }, EJSON)
    assert.equal(inserted.status, 201, JSON.stringify(inserted.body))
    const filter = { _id: inserted.body.insertedId }
    const json = await t.call('findOne', { ...ns(), filter, projection: { ...projection, _id: 0 } })
    const ejson = await t.call('findOne', { ...ns(), filter, projection: { ...projection, _id: 0 } }, EJSON)
    assert.equal(ejson.headers['content-type'], 'application/ejson; charset=utf-8')
    return { json: json.body.document, ejson: ejson.body.document }
  }

  it('ObjectId: { "$oid" } in, its hex text in JSON, { "$oid" } in Extended JSON; a filter takes it', async () => {
    const { json, ejson } = await roundTrip({ name: 'o', ownerId: { $oid: ID } }, { ownerId: 1 })
    assert.deepEqual(json, { ownerId: ID })
    assert.deepEqual(ejson, { ownerId: { $oid: ID } })
    const found = await t.call('find', { ...ns(), filter: { ownerId: { $oid: ID } }, projection: { _id: 0, name: 1 } })
    assert.deepEqual(found.body.documents, [{ name: 'o' }])
    const inserted = await t.call('insertOne', { ...ns(), document: { name: 'id' } }, EJSON)
    assert.match(inserted.body.insertedId.$oid, /^[0-9a-f]{24}$/)
  })

  it('Date: canonical and relaxed { "$date" } in, ISO text in JSON, { "$date": { "$numberLong" } } in Extended JSON; a filter compares it', async () => {
    const canonical = await roundTrip({ name: 'd', when: { $date: { $numberLong: '1654589430998' } } }, { when: 1 })
    assert.deepEqual(canonical.json, { when: '2022-06-07T08:10:30.998Z' })
    assert.deepEqual(canonical.ejson, { when: { $date: { $numberLong: '1654589430998' } } })
    const relaxed = await roundTrip({ name: 'e', when: { $date: '2022-01-12T02:33:23.067Z' } }, { when: 1 })
    assert.deepEqual(relaxed.ejson, { when: { $date: { $numberLong: '1641954803067' } } })
    const later = await t.call('find', { ...ns(), filter: { when: { $gt: { $date: '2022-03-01T00:00:00Z' } } }, projection: { _id: 0, name: 1 } })
    assert.deepEqual(later.body.documents, [{ name: 'd' }])
  })

  it('Int64: { "$numberLong" } in, a number in JSON, { "$numberLong" } in Extended JSON; past 2^53 it is refused, not rounded', async () => {
    const { json, ejson } = await roundTrip({ name: 'l', big: { $numberLong: '9007199254740991' } }, { big: 1 })
    assert.deepEqual(json, { big: 9007199254740991 })
    assert.deepEqual(ejson, { big: { $numberLong: '9007199254740991' } })
    const past = await t.call('insertOne', { ...ns(), document: { name: 'x', big: { $numberLong: '9007199254740993' } } }, EJSON)
    assert.equal(past.status, 400)
    assert.match(past.body.error, /9007199254740993 is beyond 2\^53/)
  })

  it('Int32 and Double: typed in, numbers in JSON, { "$numberInt" } and { "$numberDouble" } in Extended JSON', async () => {
    const { json, ejson } = await roundTrip({ name: 'n', qty: { $numberInt: '7' }, price: { $numberDouble: '2.5' } }, { qty: 1, price: 1 })
    assert.deepEqual(json, { qty: 7, price: 2.5 })
    assert.deepEqual(ejson, { qty: { $numberInt: '7' }, price: { $numberDouble: '2.5' } })
    // An integer past 32 bits is an Int64.
    assert.deepEqual((await roundTrip({ name: 'w', qty: 3_000_000_000 }, { qty: 1 })).ejson, { qty: { $numberLong: '3000000000' } })
    // A double field holding an integral value stays a double: the model says so.
    const integral = await roundTrip({ name: 'm', price: 2 }, { price: 1 })
    assert.deepEqual(integral.ejson, { price: { $numberDouble: '2.0' } })
  })

  it('Decimal128: { "$numberDecimal" } in, kept as a number where one holds it exactly, else as its text', async () => {
    const exact = await roundTrip({ name: 'x', dec: { $numberDecimal: '9823.1297' } }, { dec: 1 })
    assert.deepEqual(exact.json, { dec: 9823.1297 })
    const long = await roundTrip({ name: 'y', dec: { $numberDecimal: '0.1000000000000000000001' } }, { dec: 1 })
    assert.deepEqual(long.json, { dec: '0.1000000000000000000001' })
  })

  it('Binary: { "$binary" } in (a byte field), { "Subtype", "Data" } in JSON, { "$binary" } in Extended JSON', async () => {
    const { json, ejson } = await roundTrip({ name: 'b', blob: { $binary: { base64: 'AQID', subType: '00' } } }, { blob: 1 })
    assert.deepEqual(json, { blob: { Subtype: 0, Data: 'AQID' } })
    assert.deepEqual(ejson, { blob: { $binary: { base64: 'AQID', subType: '00' } } })
  })

  it('values stored by another tool as BSON types are answered in their own type', async () => {
    await t.store.db.collection('items').insertOne({
      _id: new ObjectId(ID),
      name: 'raw',
      when: new Date('2024-05-01T00:00:00.000Z'),
      big: Long.fromString('9007199254740993'),
      dec: Decimal128.fromString('1.50'),
      blob: new Binary(Buffer.from([1, 2, 3]), 5),
    })
    const json = await t.call('findOne', { ...ns(), filter: { name: 'raw' } })
    assert.deepEqual(json.body.document, { _id: ID, name: 'raw', when: '2024-05-01T00:00:00.000Z', big: '9007199254740993', dec: '1.50', blob: { Subtype: 5, Data: 'AQID' } })
    const ejson = await t.call('findOne', { ...ns(), filter: { name: 'raw' } }, EJSON)
    assert.deepEqual(ejson.body.document, {
      _id: { $oid: ID },
      name: 'raw',
      when: { $date: { $numberLong: '1714521600000' } },
      big: { $numberLong: '9007199254740993' },
      dec: { $numberDecimal: '1.50' },
      blob: { $binary: { base64: 'AQID', subType: '05' } },
    })
  })

  it('relaxed Extended JSON (plain numbers, { "$date": "<ISO>" }) and canonical may be mixed in one body', async () => {
    const res = await t.call('insertOne', { ...ns(), document: { name: 'mix', qty: 3, price: { $numberDouble: '1.5' }, when: { $date: '2024-01-01T00:00:00Z' } } })
    assert.equal(res.status, 201)
  })

  it('other Extended JSON types are refused, naming the type', async () => {
    for (const [value, type] of [[{ $timestamp: { t: 1, i: 1 } }, 'Timestamp'], [{ $minKey: 1 }, 'MinKey'], [{ $maxKey: 1 }, 'MaxKey']] as const) {
      const res = await t.call('insertOne', { ...ns(), document: { name: 't', qty: value } }, EJSON)
      assert.equal(res.status, 400)
      assert.match(res.body.error, new RegExp(`the Extended JSON type ${type} is not supported`))
    }
  })

  it('the legacy { "$regex", "$options" } form is the filter grammar\'s $regex', async () => {
    await t.call('insertMany', { ...ns(), documents: [{ name: 'Apple' }, { name: 'pear' }] })
    const res = await t.call('find', { ...ns(), filter: { name: { $regex: '^a', $options: 'i' } }, projection: { _id: 0 } })
    assert.deepEqual(res.body.documents, [{ name: 'Apple' }])
    const canonical = await t.call('find', { ...ns(), filter: { name: { $regex: { $regularExpression: { pattern: '^p', options: '' } } } }, projection: { _id: 0 } })
    assert.equal(canonical.status, 400)
  })
})
