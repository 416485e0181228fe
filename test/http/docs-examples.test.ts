import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * The examples of docs/batch.md and docs/patch.md, run as they are written: each `<!-- example -->` is
 * an HTTP request block followed by the answer block, run in the page's order against the router the
 * page names. An answer matches when its status does and its body has the values shown ("…" stands for
 * any string, an ETag or a message).
 */
const PAGES = ['batch.md', 'patch.md']

const DocUser = MongoModel('DocUser', {
  name: Type.String(),
  email: Type.String(),
  city: Type.Optional(Type.String()),
  age: Type.Optional(Type.Integer()),
  tags: Type.Optional(Type.Array(Type.String())),
})

interface Example {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly status: number
  readonly answer: unknown
}

function examplesOf(page: string): Example[] {
  const text = readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8')
  const blocks = text.split('<!-- example -->').slice(1)
  return blocks.map((block) => {
    const [request, response] = [...block.matchAll(/```http\n([\s\S]*?)```/g)].map((match) => match[1]!)
    const [head, ...bodyLines] = request!.split('\n\n')
    const [line, ...headerLines] = head!.split('\n')
    const [method, url] = line!.split(' ')
    const headers = Object.fromEntries(headerLines.map((header) => header.split(': ').map((part) => part.trim()) as [string, string]).map(([k, v]) => [k.toLowerCase(), v]))
    const [statusLine, ...answerLines] = response!.split('\n\n')
    return { method: method!, url: url!, headers, body: bodyLines.join('\n\n'), status: Number(statusLine!.split(' ')[1]), answer: JSON.parse(answerLines.join('\n\n')) }
  })
}

/** `actual` has what `expected` shows: the same values, "…" matching any string. */
function matches(actual: unknown, expected: unknown): boolean {
  if (expected === '…') return typeof actual === 'string'
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matches(actual[i], item))
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    const keys = Object.keys(expected)
    return keys.length === Object.keys(actual).length && keys.every((key) => matches((actual as Json)[key], (expected as Json)[key]))
  }
  return actual === expected
}

for (const page of PAGES) {
  describeEachStore(`the examples of docs/${page}`, (mode) => {
    let t: TestApp
    before(async () => {
      t = await buildApp(mode, { model: DocUser, collectionName: `docs_${page.replace('.md', '')}`, prefix: '/users' })
    })
    after(() => t.close())

    it('answer as the page says, in its order', async () => {
      const examples = examplesOf(page)
      assert.ok(examples.length >= 3, `docs/${page} has ${examples.length} examples`)
      for (const [index, example] of examples.entries()) {
        const res = await t.app.inject({ method: example.method as 'POST', url: example.url, headers: example.headers, payload: example.body })
        const where = `docs/${page}, example ${index + 1} (${example.method} ${example.url})`
        assert.equal(res.statusCode, example.status, `${where}: ${res.body}`)
        assert.ok(matches(res.json(), example.answer), `${where}: answered ${res.body}`)
      }
    })
  })
}
