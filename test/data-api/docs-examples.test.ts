import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp } from './data-api-harness.ts'

/**
 * The examples of docs/data-api.md, run as they are written, in the page's order: each curl command after
 * `<!-- data-api-example -->` (with the answer block after it: "…" stands for any string), the fetch code
 * after `<!-- data-api-fetch -->` (its comment says what it reads), and the request the low-code table's
 * "After" column describes.
 */
const PAGE = readFileSync(new URL('../../docs/data-api.md', import.meta.url), 'utf8')
const KEY = 'docs-example-key-0123456789abcdef012345'

const Todo = MongoModel('DocTodo', { text: Type.String(), status: Type.String(), completedAt: Type.Optional(Type.String({ format: 'date-time' })) })

/** A curl command's path, headers and body (`-H 'k: v'`, `-d '...'`), its key variable replaced. */
function curlOf(block: string): { url: string, headers: Record<string, string>, body: string } {
  const command = block.replace(/\\\n/g, ' ').replace(/\$DATA_API_KEY/g, KEY)
  const url = new URL(/curl -s (\S+)/.exec(command)![1]!).pathname
  const headers = Object.fromEntries([...command.matchAll(/-H (['"])(.*?)\1/g)].map((match) => match[2]!.split(': ') as [string, string]))
  return { url, headers, body: /-d '(.*)'/.exec(command)![1]! }
}

function matches(actual: unknown, expected: unknown): boolean {
  if (expected === '…') return typeof actual === 'string'
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matches(actual[i], item))
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false
    const keys = Object.keys(expected)
    return keys.length === Object.keys(actual).length && keys.every((key) => matches((actual as Json)[key], (expected as Json)[key]))
  }
  return actual === expected
}

describeEachStore('the examples of docs/data-api.md', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode, { routers: [{ model: Todo, collectionName: 'todos', prefix: '/todos' }], dataApi: { keys: [{ name: 'scripts', key: KEY, claims: { sub: 'scripts' } }], database: 'todo' } })
  })
  after(() => t.close())

  /** `fetch` as the examples call it, answered by the app. */
  const fetchShim = async (url: string, init: { method: string, headers: Record<string, string>, body: string }) => {
    const res = await t.app.inject({ method: init.method as 'POST', url: new URL(url).pathname, headers: init.headers, payload: init.body })
    return { status: res.statusCode, json: async () => res.json() }
  }

  it('answer as the page says, in its order', async () => {
    const curls = PAGE.split('<!-- data-api-example -->').slice(1)
    assert.equal(curls.length, 2)
    for (const [index, block] of curls.entries()) {
      const [command, answer] = [...block.matchAll(/```(?:sh|json)\n([\s\S]*?)```/g)].map((match) => match[1]!)
      const { url, headers, body } = curlOf(command!)
      // curl -d without a Content-Type sends a form type.
      const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: body })
      assert.ok(res.statusCode === 200 || res.statusCode === 201, `curl example ${index + 1}: ${res.body}`)
      assert.ok(matches(res.json(), JSON.parse(answer!)), `curl example ${index + 1} answered ${res.body}`)
    }
    const code = /<!-- data-api-fetch -->\n```js\n([\s\S]*?)```/.exec(PAGE)![1]!
    const run = new Function('fetch', 'BASE_URL', 'DATA_API_KEY', `return (async () => { ${code}; return { matchedCount, modifiedCount } })()`)
    assert.deepEqual(await run(fetchShim, 'http://localhost:8000', KEY), { matchedCount: 1, modifiedCount: 1 })
    const table = /<!-- data-api-low-code -->\n([\s\S]*?)\n\n/.exec(PAGE)![1]!
    const row = (field: string) => table.split('\n').find((line) => line.startsWith(`| ${field} |`))!.split(' | ').map((cell) => cell.replace(/^\| |`| \|$/g, ''))
    const after = new URL(row('URL')[2]!).pathname
    const res = await t.app.inject({ method: 'POST', url: after, headers: { apiKey: KEY, 'content-type': row('Header `Content-Type`')[2]! }, payload: row('Body')[1]! })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { documents: [{ _id: 'done', n: 1 }] })
  })
})
