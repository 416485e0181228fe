import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import { runCli } from '../harness/cli.ts'
import type { Json } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'
import { dataApiApp, ns } from './data-api-harness.ts'

/** An App Services rules.json of the three usual roles: an admin by claim, members who own what they write, the public. */
const RULES = {
  database: 'blog',
  collection: 'posts',
  roles: [
    { name: 'admin', apply_when: { '%%user.data.role': 'admin' }, read: true, write: true },
    {
      name: 'member',
      apply_when: { '%%user.id': { $exists: true } },
      document_filters: { read: { $or: [{ owner: '%%user.id' }, { published: true }] }, write: { owner: '%%user.id' } },
      read: true,
      write: true,
      delete: false,
    },
    { name: 'public', apply_when: {}, document_filters: { read: { published: true } }, fields: { internalNotes: { read: false }, email: { read: false } }, additional_fields: { read: true }, search: true },
  ],
}

describe('fastify-mongo-crud import-rules', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-rules-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  const run = async (rules: unknown) => {
    const path = join(dir, `rules-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(path, JSON.stringify(rules))
    return { path, ...(await runCli(['import-rules', path])) }
  }

  it('prints the access list: apply_when as when, document_filters and permissions as filters, field rules as hiddenFields', async () => {
    const { code, stdout, stderr, path } = await run(RULES)
    assert.equal(code, 0, stderr)
    assert.deepEqual(JSON.parse(stdout), [
      { role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true, update: true, create: true, delete: true },
      {
        role: 'member',
        when: { claim: 'sub' },
        read: { $or: [{ owner: { $claim: 'sub' } }, { published: true }] },
        update: { owner: { $claim: 'sub' } },
        create: { owner: { $claim: 'sub' } },
        delete: false,
      },
      { role: 'public', read: { published: true }, update: false, create: false, delete: false, hiddenFields: ['internalNotes', 'email'] },
    ])
    assert.equal(stderr, `${path}: note: roles[2] (public).search: Atlas Search permissions have no effect here (left out)\n`)
  })

  it('refuses to guess: what has no exact equivalent is listed at its place, and no list is printed', async () => {
    const { code, stdout, stderr } = await run({
      roles: [
        { name: 'owner', apply_when: { owner_id: '%%user.id' }, read: true, write: true },
        { name: 'team', apply_when: { '%%user.custom_data.team': 'a' }, read: true },
        { name: 'partial', apply_when: {}, fields: { title: { read: true } } },
        { name: 'nested', apply_when: {}, read: true, fields: { address: { fields: { city: { read: true } } } } },
        { name: 'code', apply_when: {}, read: { $where: 'true' } },
      ],
      filters: [{ name: 'f', apply_when: {}, query: {} }],
    })
    assert.equal(code, 1)
    assert.equal(stdout, '')
    for (const expected of [
      /filters: the query filters of rules.json have no equivalent/,
      /roles\[0\] \(owner\)\.apply_when: "owner_id" reads the document/,
      /roles\[1\] \(team\)\.apply_when: "%%user\.custom_data\.team" has no equivalent/,
      /roles\[2\] \(partial\)\.additional_fields: the role sees only the fields listed/,
      /roles\[3\] \(nested\)\.fields\.address\.fields: rules of embedded fields have no equivalent/,
      /roles\[4\] \(code\)\.read\.\$where: \$where runs code/,
      /6 parts of .* have no exact equivalent \(above\): no access list was printed/,
    ]) {
      assert.match(stderr, expected)
    }
  })

  it('a header condition becomes when: { header }; write permission on only some fields makes readOnlyFields, and no create nor delete', async () => {
    const { code, stdout, stderr } = await run({
      roles: [{ name: 'editor', apply_when: { '%%request.requestHeaders.X-Team': 'news' }, read: true, fields: { owner: { read: true, write: false } }, additional_fields: { read: true, write: true } }],
    })
    assert.equal(code, 0, stderr)
    assert.deepEqual(JSON.parse(stdout), [{ role: 'editor', when: { header: 'x-team', equals: 'news' }, read: true, update: true, create: false, delete: false, readOnlyFields: ['owner'] }])
  })

  it('a role that may set only the fields it lists is refused (readOnlyFields names the others)', async () => {
    const { code, stderr } = await run({ roles: [{ name: 'tagger', apply_when: {}, read: true, fields: { tags: { write: true } } }] })
    assert.equal(code, 1)
    assert.match(stderr, /roles\[0\] \(tagger\)\.additional_fields: the role may set only the fields listed/)
  })

  it('a missing file argument is bad usage (exit code 2)', async () => {
    const { code, stderr } = await runCli(['import-rules'])
    assert.equal(code, 2)
    assert.match(stderr, /import-rules takes one rules\.json, got none/)
  })

  it('the printed list, used as a router\'s access, lets each caller do what its App Services role did', async () => {
    const { stdout } = await run(RULES)
    const Post = MongoModel('RulesPost', { title: Type.String(), owner: Type.String(), published: Type.Boolean(), internalNotes: Type.Optional(Type.String()), email: Type.Optional(Type.String()) })
    const keys = { admin: 'rules-admin-key-0123456789abcdef0123', alice: 'rules-alice-key-0123456789abcdef0123', anon: 'rules-anon-key-0123456789abcdef01234' }
    const t = await dataApiApp(storeModes[0]!, {
      routers: [{ model: Post, collectionName: 'posts', prefix: '/posts', access: JSON.parse(stdout) }],
      dataApi: { keys: [{ name: 'admin', key: keys.admin, claims: { sub: 'root', role: 'admin' } }, { name: 'alice', key: keys.alice, claims: { sub: 'alice' } }, { name: 'anon', key: keys.anon, claims: {} }] },
    })
    try {
      const docs = [{ title: 'alice draft', owner: 'alice', published: false }, { title: 'bob post', owner: 'bob', published: true, internalNotes: 'n', email: 'b@x' }, { title: 'bob draft', owner: 'bob', published: false }]
      assert.equal((await t.call('insertMany', { ...ns('posts'), documents: docs }, { apiKey: keys.admin })).status, 201)
      const seen = async (key: string) => (await t.call('find', { ...ns('posts'), filter: {}, sort: { title: 1 } }, { apiKey: key })).body.documents as Json[]
      const titles = (docs: Json[]) => docs.map((doc) => doc.title)
      assert.deepEqual(titles(await seen(keys.admin)), ['alice draft', 'bob draft', 'bob post'])
      assert.deepEqual(titles(await seen(keys.alice)), ['alice draft', 'bob post'])
      const anonymous = await seen(keys.anon)
      assert.deepEqual(titles(anonymous), ['bob post'])
      // The public role does not see internalNotes and email; admin does.
      assert.deepEqual(Object.keys(anonymous[0]).sort(), ['_id', 'owner', 'published', 'title'])
      assert.equal((await seen(keys.admin))[2].email, 'b@x')
      assert.equal((await t.call('deleteOne', { ...ns('posts'), filter: { title: 'alice draft' } }, { apiKey: keys.alice })).status, 403)
      assert.equal((await t.call('insertOne', { ...ns('posts'), document: { title: 'x', owner: 'bob', published: true } }, { apiKey: keys.alice })).status, 403)
    } finally {
      await t.close()
    }
  })
})
