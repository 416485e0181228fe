import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup } from 'fastify-mongo-crud'
import type { TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { ReadsBeforeWrites } from '../harness/reads-before-writes.ts'
import { Address, Author, buildRelationsApp, Message, Person } from '../harness/relations.ts'
import { createDoc } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const messages = new CRUDLookup({ model: Message, collectionName: 'messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })
const addresses = new CRUDEmbed({ model: Address, embedName: 'addresses' })

describeEachStore('conditional writes race: two writes with the same If-Match, exactly one applies', (mode) => {
  const barrier = new ReadsBeforeWrites()
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(
      mode,
      { wrapDb: (db) => barrier.wrap(db) },
      { model: User, collectionName: 'users', prefix: '/users' },
      { model: Author, collectionName: 'authors', prefix: '/authors', lookups: [messages] },
      { model: Person, collectionName: 'people', prefix: '/people', embeds: [addresses] },
    )
  })
  after(() => t.close())

  type Write = { method: 'PATCH' | 'PUT' | 'DELETE', payload?: Record<string, unknown> }

  /**
   * Sends both writes with the tag `url` has now, both in flight before either is awaited, and
   * returns their statuses (sorted) and the tag the document has afterwards.
   */
  async function race(url: string, first: Write, second: Write, readsPerRequest: number): Promise<number[]> {
    const tag = (await t.app.inject({ method: 'GET', url })).headers.etag as string
    barrier.arm(2 * readsPerRequest)
    try {
      const headers = { 'if-match': tag }
      const answers = await Promise.all([t.app.inject({ ...first, url, headers }), t.app.inject({ ...second, url, headers })])
      for (const answer of answers) {
        if (answer.statusCode === 412) assert.deepEqual(answer.json(), { detail: 'Precondition failed: the document has changed (If-Match names another version)' })
      }
      return answers.map((answer) => answer.statusCode).sort()
    } finally {
      barrier.disarm()
    }
  }

  const hal = { name: 'hal', email: 'hal@example.com', password: 'pw' }

  it('two PATCHes of a document: one 200, one 412, and the document holds the winner', { timeout: 60_000 }, async () => {
    const doc = await createDoc(t.app, '/users', hal)
    const url = `/users/${doc.id}`
    assert.deepEqual(await race(url, { method: 'PATCH', payload: { city: 'A' } }, { method: 'PATCH', payload: { age: 1 } }, 1), [200, 412])
    const now = (await t.app.inject({ method: 'GET', url })).json()
    // Exactly one of the two changes is there: the loser did not write either.
    assert.equal((now.city === 'A' ? 1 : 0) + (now.age === 1 ? 1 : 0), 1, JSON.stringify(now))
  })

  it('a PUT and a DELETE of a document: exactly one applies', { timeout: 60_000 }, async () => {
    const doc = await createDoc(t.app, '/users', hal)
    const url = `/users/${doc.id}`
    const statuses = await race(url, { method: 'PUT', payload: { ...hal, name: 'put' } }, { method: 'DELETE' }, 1)
    const after = await t.app.inject({ method: 'GET', url })
    if (statuses.includes(204)) {
      // The DELETE won: the PUT then finds no document, and answers as for a missing one.
      assert.deepEqual(statuses, [204, 422])
      assert.equal(after.statusCode, 400)
    } else {
      assert.deepEqual(statuses, [200, 412])
      assert.equal(after.json().name, 'put')
    }
  })

  it('two PATCHes of a lookup child: one 200, one 412', { timeout: 60_000 }, async () => {
    const author = await createDoc(t.app, '/authors', { name: 'ann' })
    const message = await createDoc(t.app, `/authors/${author.id}/messages`, { text: 'hi' })
    // Each child request reads its parent, then the child.
    const statuses = await race(`/authors/${author.id}/messages/${message.id}`, { method: 'PATCH', payload: { text: 'a' } }, { method: 'PATCH', payload: { text: 'b' } }, 2)
    assert.deepEqual(statuses, [200, 412])
  })

  it('a JSON Patch of a lookup child deleted between its read and its write: 422 "Document not updated", as for a PATCH of a missing child', { timeout: 60_000 }, async () => {
    const author = await createDoc(t.app, '/authors', { name: 'ann' })
    const message = await createDoc(t.app, `/authors/${author.id}/messages`, { text: 'hi' })
    const url = `/authors/${author.id}/messages/${message.id}`
    // The patch reads the parent and the child, the DELETE the parent: the DELETE's write is the first held.
    barrier.arm(4)
    try {
      const patch = { method: 'PATCH' as const, url, headers: { 'content-type': 'application/json-patch+json' }, payload: JSON.stringify([{ op: 'replace', path: '/text', value: 'late' }]) }
      const [patched, deleted] = await Promise.all([t.app.inject(patch), t.app.inject({ method: 'DELETE', url })])
      assert.equal(deleted.statusCode, 204)
      expectDetail(patched, 422, 'Document not updated')
    } finally {
      barrier.disarm()
    }
  })

  it('two PATCHes of an embedded item: one 200, one 412', { timeout: 60_000 }, async () => {
    const person = await createDoc(t.app, '/people', { name: 'bob' })
    const address = await createDoc(t.app, `/people/${person.id}/addresses`, { street: 's', city: 'Rome' })
    const statuses = await race(`/people/${person.id}/addresses/${address.id}`, { method: 'PATCH', payload: { city: 'a' } }, { method: 'PATCH', payload: { city: 'b' } }, 1)
    assert.deepEqual(statuses, [200, 412])
  })
})
