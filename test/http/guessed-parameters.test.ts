import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { buildApiApp, loadApiFile } from 'fastify-mongo-crud/api-file'
import { buildApp, type TestApp } from '../harness/app.ts'
import { storeModes } from '../harness/stores.ts'

const Member = MongoModel('GuessedMember', { name: Type.String(), age: Type.Integer(), password: Type.String() })
const MemberOut = MongoModelOut('GuessedMemberOut', { name: Type.String(), age: Type.Integer() })

/** Query parsing is the router's own, before any store: one store is enough. */
const [mode] = storeModes

describe('query parameters a newcomer guesses answer 400 with the form that means them', () => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode!, { model: Member, modelOut: MemberOut, collectionName: 'guessed', prefix: '/users' })
    for (const [name, age] of [['ann', 30], ['bob', 2]] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/users', payload: { name, age, password: 'pw' } })
      assert.equal(res.statusCode, 201, res.body)
    }
  })
  after(() => t.close())

  const refused = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
    return (res.json() as { detail: string }).detail
  }

  it('a field as a parameter: the filters= equality, typed as the field is', async () => {
    const detail = await refused('/users?name=ann')
    assert.match(detail, /^name is not a query parameter: filter with filters=\{"name":"ann"\}/)
    assert.match(await refused('/users?age=30'), /filters=\{"age":30\}/)
  })

  it('a field with an operator suffix, Django or bracket style', async () => {
    assert.match(await refused('/users?age__gt=3'), /filters=\{"age":\{"\$gt":3\}\}/)
    assert.match(await refused('/users?age%5Blte%5D=3'), /filters=\{"age":\{"\$lte":3\}\}/)
    assert.match(await refused('/users?name__in=ann,bob'), /filters=\{"name":\{"\$in":\["ann","bob"\]\}\}/)
    assert.match(await refused('/users?id=64f0c0ffee64f0c0ffee64f0'), /filters=\{"id":"64f0c0ffee64f0c0ffee64f0"\}/)
  })

  it('the form it gives works as given (URL-encoded)', async () => {
    const detail = await refused('/users?age__gt=3')
    const encoded = /URL-encoded: (filters=\S+)\)$/.exec(detail)?.[1]
    assert.ok(encoded, detail)
    const res = await t.app.inject({ method: 'GET', url: `/users?${encoded}` })
    assert.deepEqual((res.json() as Array<{ name: string }>).map((user) => user.name), ['ann'])
  })

  it("another API's paging and sort name ours", async () => {
    assert.match(await refused('/users?page=2'), /skip and limit/)
    assert.match(await refused('/users?per_page=5'), /limit/)
    assert.match(await refused('/users?offset=5'), /skip/)
    assert.match(await refused('/users?sort=name'), /sort_by/)
  })

  it('the same on _groups', async () => {
    assert.match(await refused('/users/_groups?by=name&age__gte=3'), /filters=\{"age":\{"\$gte":3\}\}/)
  })

  it('parameters that name nothing are ignored: cache busters, hidden fields, unknown operators', async () => {
    for (const url of ['/users?_=1700000000', '/users?utm_source=mail', '/users?password=pw', '/users?age__near=3']) {
      const res = await t.app.inject({ method: 'GET', url })
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
      assert.equal((res.json() as unknown[]).length, 2)
    }
  })
})

describe("docs/http-contract.md's curl example runs against the demo API", () => {
  it('answers the filtered, sorted page it describes', async () => {
    const page = await readFile(new URL('../../docs/http-contract.md', import.meta.url), 'utf8')
    const line = page.split('\n').find((text) => text.startsWith('curl -G http://127.0.0.1:8000/api/v2/users'))
    assert.ok(line, 'docs/http-contract.md has no curl example of filters')
    const db = await openEmbedded()
    const app = await buildApiApp(await loadApiFile(new URL('../../api.json', import.meta.url).pathname), db, { fastify: { logger: false } })
    try {
      const origin = await app.listen({ port: 0, host: '127.0.0.1' })
      for (const [name, age] of [['alice', 30], ['adam', 19], ['ann', 12], ['bob', 40]] as const) {
        const res = await app.inject({ method: 'POST', url: '/api/v2/users', payload: { name, email: `${name}@example.com`, password: 'password1', age } })
        assert.equal(res.statusCode, 201, res.body)
      }
      // The page's command as written, on this server's port.
      const args = splitShell(line.replace('http://127.0.0.1:8000', origin)).slice(1)
      const { stdout } = await promisify(execFile)('curl', ['-s', ...args])
      assert.deepEqual((JSON.parse(stdout) as Array<{ name: string }>).map((user) => user.name), ['alice', 'adam'])
    } finally {
      await app.close()
      await db.close()
    }
  })
})

/** Words of a shell line with single quotes (what the page's example uses). */
function splitShell(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!)
}
