import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Binary, Decimal128, Long, ObjectId } from 'mongodb'
import { matchDocumentList, matchValue } from './match.ts'

const matches = (expected: unknown, actual: unknown, root = true) => assert.equal(matchValue(expected, actual, { root }), undefined)
const differs = (expected: unknown, actual: unknown, root = true) => assert.notEqual(matchValue(expected, actual, { root }), undefined)

describe('matchValue (the unified format matching rules)', () => {
  it('allows extra keys in a root-level document only', () => {
    matches({ x: 1 }, { x: 1, y: 1 })
    differs({ x: 1 }, { x: 1, y: 1 }, false)
    differs({ x: { y: 1 } }, { x: { y: 1, z: 1 } })
    differs({ x: 1, y: 1 }, { x: 1 })
    matches({ x: { y: 1 } }, { x: { y: 1 } })
  })

  it('ignores key order', () => {
    matches({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })
  })

  it('compares numbers by value across int, long and double, not across other types', () => {
    matches({ n: 1 }, { n: 1.0 })
    matches({ n: 5 }, { n: Long.fromNumber(5) })
    differs({ n: 1 }, { n: 1.5 })
    differs({ n: 1 }, { n: '1' })
    differs({ n: null }, { n: 0 })
    matches({ d: Decimal128.fromString('1.5') }, { d: Decimal128.fromString('1.5') })
  })

  it('requires arrays of the same length, element by element, with nested documents exact', () => {
    matches([1, { a: 1 }], [1, { a: 1 }])
    differs([1, 2], [1, 2, 3])
    differs([{ a: 1 }], [{ a: 1, b: 2 }])
    differs([1, 2], [2, 1])
  })

  it('matches lists of root-level documents (find, aggregate) with extra keys in each', () => {
    assert.equal(matchDocumentList([{ x: 1 }, { x: 2 }], [{ x: 1, y: 1 }, { x: 2, y: 2 }]), undefined)
    assert.notEqual(matchDocumentList([{ x: 1 }], [{ x: 1 }, { x: 2 }]), undefined)
    assert.notEqual(matchDocumentList([{ x: { a: 1 } }], [{ x: { a: 1, b: 1 } }]), undefined)
  })

  it('$$unsetOrMatches: absent, or present and matching', () => {
    matches({ insertedId: { $$unsetOrMatches: 2 } }, {})
    matches({ insertedId: { $$unsetOrMatches: 2 } }, { insertedId: 2 })
    differs({ insertedId: { $$unsetOrMatches: 2 } }, { insertedId: 3 })
    matches({ $$unsetOrMatches: { insertedId: 1 } }, undefined)
    matches({ $$unsetOrMatches: { insertedId: 1 } }, { insertedId: 1, acknowledged: true })
    differs({ a: { $$unsetOrMatches: { b: 1 } } }, { a: { b: 1, c: 1 } })
  })

  it('$$exists: present or absent as asked', () => {
    matches({ a: { $$exists: true } }, { a: null })
    differs({ a: { $$exists: true } }, { b: 1 })
    matches({ a: { $$exists: false } }, { b: 1 })
    differs({ a: { $$exists: false } }, { a: 1 })
    matches({ x: { a: { $$exists: false } } }, { x: {} }, true)
  })

  it('$$type: one type or a list of types', () => {
    matches({ id: { $$type: 'objectId' } }, { id: new ObjectId() })
    differs({ id: { $$type: 'objectId' } }, { id: 'abc' })
    matches({ n: { $$type: ['int', 'long'] } }, { n: 3 })
    differs({ n: { $$type: ['int', 'long'] } }, { n: 3.5 })
    differs({ n: { $$type: 'string' } }, {})
    matches({ a: { $$type: 'array' } }, { a: [1, 'x'] })
  })

  it('$$matchesHexBytes: the bytes of a binary value', () => {
    matches({ b: { $$matchesHexBytes: '12ab' } }, { b: new Binary(Buffer.from([0x12, 0xab])) })
    differs({ b: { $$matchesHexBytes: '12AC' } }, { b: new Binary(Buffer.from([0x12, 0xab])) })
  })

  it('reports an operator it does not know instead of ignoring it', () => {
    differs({ a: { $$matchAsRoot: {} } }, { a: {} })
  })

  it('$$sessionLsid: the lsid of a session entity of the test; a name that is none is a mismatch', () => {
    const id = new Binary(Buffer.alloc(16, 1), 4)
    const sessions = new Map([['session0', { id }]])
    assert.equal(matchValue({ lsid: { $$sessionLsid: 'session0' } }, { lsid: { id: new Binary(Buffer.alloc(16, 1), 4) } }, { sessions }), undefined)
    assert.notEqual(matchValue({ lsid: { $$sessionLsid: 'session0' } }, { lsid: { id: new Binary(Buffer.alloc(16, 2), 4) } }, { sessions }), undefined)
    assert.match(matchValue({ lsid: { $$sessionLsid: 'session1' } }, { lsid: { id } }, { sessions }) ?? '', /no session entity/)
  })

  it('compares ObjectIds and dates by value', () => {
    const id = new ObjectId()
    matches({ _id: new ObjectId(id.toHexString()) }, { _id: id })
    differs({ _id: new ObjectId() }, { _id: id })
    matches({ at: new Date(5) }, { at: new Date(5) })
    differs({ at: new Date(5) }, { at: new Date(6) })
  })
})
