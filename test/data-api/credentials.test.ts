import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { dataApiClaims, HTTPException, MongoModel, Type } from 'fastify-mongo-crud'
import { jwtVerify, SignJWT } from 'jose'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp, ns } from './data-api-harness.ts'

const SECRET = new TextEncoder().encode('a-test-secret-of-at-least-32-bytes!!')
const ADMIN_KEY = 'admin-key-0123456789abcdef0123456789'
const MEMBER_KEY = 'member-key-0123456789abcdef012345678'
const STRANGER_KEY = 'stranger-key-0123456789abcdef0123456'

const Post = MongoModel('DataPost', { title: Type.String(), owner: Type.String(), published: Type.Boolean(), internal: Type.Optional(Type.String()) })

const Note = MongoModel('DataNote', { text: Type.String() })

const token = (claims: Record<string, unknown>, expiresIn = '1h') => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(expiresIn).sign(SECRET)

describeEachStore('Data API credentials and roles', (mode) => {
  let t: DataApiTestApp
  const guardSaw: Array<Readonly<Record<string, unknown>> | undefined> = []
  const userSaw: unknown[] = []
  const operationSaw: unknown[] = []
  before(async () => {
    t = await dataApiApp(mode, {
      routers: [
        {
          model: Post,
          collectionName: 'posts',
          prefix: '/posts',
          access: [
            { role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true, create: true, update: true, delete: true },
            {
              role: 'member',
              when: { claim: 'sub' },
              read: { $or: [{ owner: { $claim: 'sub' } }, { published: true }] },
              create: { owner: { $claim: 'sub' } },
              update: { owner: { $claim: 'sub' } },
              delete: false,
              hiddenFields: ['internal'],
              readOnlyFields: ['owner'],
            },
          ],
          dependenciesGetAll: [
            (request: FastifyRequest) => {
              userSaw.push((request as unknown as { user?: unknown }).user)
            },
          ],
          dependenciesDeleteOne: [
            (request: FastifyRequest) => {
              guardSaw.push(dataApiClaims(request))
              operationSaw.push(request.crudOperation === undefined ? undefined : { ...request.crudOperation })
              if (request.headers['x-block'] === 'yes') throw new HTTPException(403, 'Blocked by a guard')
            },
          ],
        },
        {
          // Claims of its own (from a session, say) that a Data API caller does not carry.
          model: Note,
          collectionName: 'notes',
          prefix: '/notes',
          accessClaims: () => undefined,
          access: [{ role: 'member', when: { claim: 'sub' }, read: true, create: true, update: true, delete: true }],
        },
      ],
      dataApi: {
        keys: [
          { name: 'admin', key: ADMIN_KEY, claims: { sub: 'root', role: 'admin' } },
          { name: 'member', key: MEMBER_KEY, claims: { sub: 'alice' } },
          { name: 'stranger', key: STRANGER_KEY, claims: {} },
        ],
        verifyToken: async (jwt) => (await jwtVerify(jwt, SECRET)).payload,
      },
    })
    await t.call('insertMany', {
      ...ns('posts'),
      documents: [
        { title: 'alice draft', owner: 'alice', published: false, internal: 'n1' },
        { title: 'bob draft', owner: 'bob', published: false, internal: 'n2' },
        { title: 'bob post', owner: 'bob', published: true, internal: 'n3' },
      ],
    }, { apiKey: ADMIN_KEY })
  })
  after(() => t.close())

  const titles = async (headers: Record<string, string>) => {
    const res = await t.call('find', { ...ns('posts'), filter: {}, sort: { title: 1 } }, headers)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.documents.map((doc: Json) => doc.title)
  }

  it('apiKey: the key names its caller, whose claims choose the role', async () => {
    assert.deepEqual(await titles({ apiKey: ADMIN_KEY }), ['alice draft', 'bob draft', 'bob post'])
    assert.deepEqual(await titles({ apiKey: MEMBER_KEY }), ['alice draft', 'bob post'])
  })

  it('in code, the claims are request.user', async () => {
    await titles({ apiKey: MEMBER_KEY })
    assert.deepEqual(userSaw.at(-1), { sub: 'alice' })
  })

  it("aggregate runs under the caller's read filter, and $lookup joins under the joined router's rules", async () => {
    const grouped = await t.call('aggregate', { ...ns('posts'), pipeline: [{ $group: { _id: null, titles: { $push: '$title' } } }] }, { apiKey: MEMBER_KEY })
    assert.deepEqual(grouped.body.documents[0].titles.sort(), ['alice draft', 'bob post'])
    const guardsBefore = userSaw.length
    const joined = await t.call('aggregate', {
      ...ns('posts'),
      pipeline: [{ $match: { title: 'bob post' } }, { $lookup: { from: 'posts', localField: 'owner', foreignField: 'owner', as: 'same' } }, { $project: { _id: 0, 'same.title': 1 } }],
    }, { apiKey: MEMBER_KEY })
    // Bob's draft shares the owner, but alice may not read it: the join does not bring it.
    assert.deepEqual(joined.body.documents, [{ same: [{ title: 'bob post' }] }])
    // The list guards ran for the collection read and for the one joined.
    assert.equal(userSaw.length - guardsBefore, 2)
  })

  it('naming a hidden field in a filter, a sort or a stage is refused in the words of a field that does not exist', async () => {
    const bodies = (field: string): Array<[string, Json]> => [
      ['find', { filter: { [field]: 'x' } }],
      ['find', { filter: {}, sort: { [field]: 1 } }],
      ['aggregate', { pipeline: [{ $group: { _id: `$${field}` } }] }],
      ['updateOne', { filter: {}, update: { $set: { [field]: 'x' } } }],
    ]
    const hidden = bodies('internal')
    const unknown = bodies('nosuch')
    for (const [index, [action, body]] of hidden.entries()) {
      const a = await t.call(action, { ...ns('posts'), ...body }, { apiKey: MEMBER_KEY })
      const b = await t.call(unknown[index]![0], { ...ns('posts'), ...unknown[index]![1] }, { apiKey: MEMBER_KEY })
      assert.equal(a.status, 400, JSON.stringify(a.body))
      assert.deepEqual({ ...a.body, error: a.body.error.replace('internal', 'X') }, { ...b.body, error: b.body.error.replace('nosuch', 'X') })
    }
  })

  it('Authorization: Bearer <token>: verified by verifyToken, its claims choose the role', async () => {
    assert.deepEqual(await titles({ authorization: `Bearer ${await token({ sub: 'bob' })}` }), ['bob draft', 'bob post'])
  })

  it('jwtTokenString: <token>: the same', async () => {
    assert.deepEqual(await titles({ jwtTokenString: await token({ sub: 'bob' }) }), ['bob draft', 'bob post'])
  })

  it('no credentials: 400, as MongoDB answered it', async () => {
    const res = await t.call('find', { ...ns('posts'), filter: {} }, {})
    assert.equal(res.status, 400)
    assert.deepEqual(res.body, { error: 'no authentication methods were specified', error_code: 'InvalidParameter' })
  })

  it('an unknown key, a forged or expired token: 401, as MongoDB answered it', async () => {
    const expected = { error: 'invalid session: error finding user for endpoint', error_code: 'InvalidSession' }
    for (const headers of [{ apiKey: 'no-such-key-0123456789abcdef0123456789' }, { jwtTokenString: 'not.a.token' }, { authorization: `Bearer ${await token({ sub: 'bob' }, '-1s')}` }]) {
      const res = await t.call('find', { ...ns('posts'), filter: {} }, headers)
      assert.equal(res.status, 401, JSON.stringify(headers))
      assert.deepEqual(res.body, expected)
    }
  })

  it('a bad Bearer token fails even beside a good key: Authorization is read first', async () => {
    const res = await t.call('find', { ...ns('posts'), filter: {} }, { authorization: 'Bearer nope', apiKey: ADMIN_KEY })
    assert.equal(res.status, 401)
  })

  it('email and password credentials are refused with 400 naming what is taken', async () => {
    const res = await t.call('find', { ...ns('posts'), filter: {} }, { email: 'a@example.com', password: 'pw' })
    assert.equal(res.status, 400)
    assert.match(res.body.error, /email and password credentials are not taken here/)
  })

  it('a caller no role applies to is 403 NoMatchingRuleFound', async () => {
    const res = await t.call('find', { ...ns('posts'), filter: {} }, { apiKey: STRANGER_KEY })
    assert.equal(res.status, 403)
    assert.equal(res.body.error_code, 'NoMatchingRuleFound')
  })

  it("a caller the router's own accessClaims find no claims for is 403, not told it sent no credentials", async () => {
    const res = await t.call('find', { ...ns('notes'), filter: {} }, { apiKey: ADMIN_KEY })
    assert.deepEqual(res.body, { error: 'Refused: no role of this API applies to the caller', error_code: 'NoMatchingRuleFound' })
    assert.equal(res.status, 403)
  })

  it("a role's hidden field is not answered, and naming it is refused as an unknown field is", async () => {
    const doc = (await t.call('findOne', { ...ns('posts'), filter: { title: 'alice draft' } }, { apiKey: MEMBER_KEY })).body.document
    assert.equal('internal' in doc, false)
    const projected = await t.call('find', { ...ns('posts'), filter: {}, projection: { internal: 1 } }, { apiKey: MEMBER_KEY })
    const unknown = await t.call('find', { ...ns('posts'), filter: {}, projection: { nosuch: 1 } }, { apiKey: MEMBER_KEY })
    assert.equal(projected.status, 400)
    assert.equal(projected.body.error.replace('internal', 'X'), unknown.body.error.replace('nosuch', 'X'))
    const admin = (await t.call('findOne', { ...ns('posts'), filter: { title: 'alice draft' } }, { apiKey: ADMIN_KEY })).body.document
    assert.equal(admin.internal, 'n1')
  })

  it("a role's create filter is checked on inserts: another owner is 403, and nothing is stored", async () => {
    const res = await t.call('insertOne', { ...ns('posts'), document: { title: 'forged', owner: 'bob', published: true } }, { apiKey: MEMBER_KEY })
    assert.equal(res.status, 403)
    assert.equal(res.body.error_code, 'NoMatchingRuleFound')
    assert.deepEqual((await t.call('find', { ...ns('posts'), filter: { title: 'forged' } }, { apiKey: ADMIN_KEY })).body.documents, [])
  })

  it('a role may not update what its update filter leaves out, nor set a read-only field', async () => {
    const others = await t.call('updateMany', { ...ns('posts'), filter: {}, update: { $set: { title: 'mine now' } } }, { apiKey: MEMBER_KEY })
    assert.deepEqual(others.body, { matchedCount: 1, modifiedCount: 1 })
    assert.deepEqual(await titles({ apiKey: MEMBER_KEY }), ['bob post', 'mine now'])
    const owner = await t.call('updateOne', { ...ns('posts'), filter: { title: 'mine now' }, update: { $set: { owner: 'carol' } } }, { apiKey: MEMBER_KEY })
    assert.equal(owner.status, 422)
    assert.equal(owner.body.error_code, 'SchemaValidationFailedWrite')
  })

  it('a role that may not delete gets 403; the router guards of the route run, seeing the caller', async () => {
    const member = await t.call('deleteOne', { ...ns('posts'), filter: { title: 'bob post' } }, { apiKey: MEMBER_KEY })
    assert.equal(member.status, 403)
    const blocked = await t.call('deleteOne', { ...ns('posts'), filter: { title: 'bob post' } }, { apiKey: ADMIN_KEY, 'x-block': 'yes' })
    assert.equal(blocked.status, 403)
    assert.deepEqual(blocked.body, { error: 'Blocked by a guard', error_code: 'NoMatchingRuleFound' })
    assert.deepEqual(guardSaw.at(-1), { sub: 'root', role: 'admin' })
    // The guard is asked about the one document's delete the action stands for (docs/batch.md, Guards).
    const shown = await t.call('findOne', { ...ns('posts'), filter: { title: 'bob post' } }, { apiKey: ADMIN_KEY })
    const id = (shown.body.document as { _id: string })._id
    assert.deepEqual(operationSaw.at(-1), { op: 'delete', id, body: undefined, ifMatch: undefined, contentType: 'application/json' })
  })
})
