// docs/security.md, "Access policy": a role writes only what it may read, at the moment of the write. Two
// writes race on one post: its owner (a member, whose role updates only its own posts) changes the title
// while an admin gives the post to someone else. The worst order is made certain, without timing: the
// member reads the post (it still owns it), the admin's write lands, then the member's write goes. A
// check made when reading would let the member's change land on a post it no longer owns.
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { type DriverDb, MongoModel, Type } from 'fastify-mongo-crud'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { createDoc } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const RacePost = MongoModel('RacePost', { title: Type.String(), owner: Type.String() })

const ACCESS = [
  { role: 'admin', when: { header: 'x-admin', equals: 'yes' }, read: true, create: true, update: true, delete: true },
  { role: 'member', when: { header: 'x-user' }, read: { owner: { $header: 'x-user' } }, create: false, update: { owner: { $header: 'x-user' } }, delete: false },
]
const ADMIN = { 'x-admin': 'yes' }
const ALICE = { 'x-user': 'alice' }

/**
 * How the member sends its change: each media type of PATCH takes its own way to the write, with the
 * reads it makes first (a JSON body is one conditional update, with nothing read before it).
 */
const MEMBER_WRITES = {
  'a JSON PATCH': { reads: 0, headers: ALICE, payload: { title: 'changed' } },
  'a merge patch': { reads: 1, headers: { ...ALICE, 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ title: 'changed' }) },
  'a JSON Patch': { reads: 1, headers: { ...ALICE, 'content-type': 'application/json-patch+json' }, payload: JSON.stringify([{ op: 'replace', path: '/title', value: 'changed' }]) },
}

const WRITES = new Set(['findOneAndUpdate', 'findOneAndReplace', 'updateOne', 'replaceOne'])

/** A promise and what resolves it (Promise.withResolvers, which Node 20 lacks). */
function opened(): { promise: Promise<void>, resolve: () => void } {
  let resolve = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

/** Once armed: the admin's write (the one setting owner "bob") waits for the member's reads, and the member's write for it. */
class MoveBetween {
  #reads = 0
  #armed = false
  #readsDone = opened()
  #moved = opened()

  arm(reads: number): void {
    this.#armed = true
    this.#reads = reads
    this.#readsDone = opened()
    this.#moved = opened()
    if (reads === 0) this.#readsDone.resolve()
  }

  disarm(): void {
    this.#armed = false
    this.#readsDone.resolve()
    this.#moved.resolve()
  }

  wrap(db: DriverDb): DriverDb {
    return interceptCollections(db, async (call, method, args) => {
      if (!this.#armed || !WRITES.has(method)) {
        const result = await call()
        if (this.#armed && method === 'findOne' && --this.#reads === 0) this.#readsDone.resolve()
        return result
      }
      if (!JSON.stringify(args).includes('"bob"')) {
        await this.#moved.promise
        return call()
      }
      await this.#readsDone.promise
      try {
        return await call()
      } finally {
        this.#moved.resolve()
      }
    }) as DriverDb
  }
}

describeEachStore('access: a write races a change of what the role may write', (mode) => {
  const barrier = new MoveBetween()
  let t: TestApp
  before(async () => {
    const router = { model: RacePost, collectionName: 'racePosts', prefix: '/posts', access: ACCESS as never, accessClaims: (_: FastifyRequest) => undefined }
    t = await buildAppWith(mode, { wrapDb: (db) => barrier.wrap(db) }, router)
  })
  after(() => t.close())

  for (const [name, { reads, ...write }] of Object.entries(MEMBER_WRITES)) {
    it(`${name} of the owner, read before the admin's move and written after it: refused, and not stored`, { timeout: 60_000 }, async () => {
      const post = await createDoc(t.app, '/posts', { title: 'first', owner: 'alice' }, ADMIN)
      const url = `/posts/${post.id}`
      barrier.arm(reads)
      let answers: Awaited<ReturnType<TestApp['app']['inject']>>[]
      try {
        answers = await Promise.all([t.app.inject({ method: 'PATCH', url, ...write }), t.app.inject({ method: 'PATCH', url, headers: ADMIN, payload: { owner: 'bob' } })])
      } finally {
        barrier.disarm()
      }
      const [member, admin] = answers
      // The admin's move is never lost.
      assert.equal(admin!.statusCode, 200, admin!.body)
      const now = (await t.app.inject({ url, headers: ADMIN })).json()
      assert.equal(now.owner, 'bob')
      // Refused as a PATCH of a missing document is, whatever its media type (docs/http-contract.md), and not stored.
      assert.deepEqual([member!.statusCode, member!.json()], [422, { detail: 'Document not updated' }])
      assert.equal(now.title, 'first')
    })
  }
})
