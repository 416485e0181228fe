import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import Fastify from 'fastify'
import { CRUDRouter } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { storeModes } from '../harness/stores.ts'

/**
 * Every error body of an app made by createApp is `{ "detail": ... }`, also the ones Fastify and Node's
 * HTTP parser answer before any route runs: a URL that is not valid percent-encoding (400), a path
 * parameter past `maxParamLength` (414), headers or URL past `maxHeaderSize` (431), an unparsable
 * request (400). Checked over real HTTP on 127.0.0.1: `inject` never reaches the parser.
 */
describe('error bodies of the framework and the HTTP parser', () => {
  let t: TestApp
  let origin: string
  let port: number
  before(async () => {
    t = await buildApp(storeModes[0]!, { model: User, collectionName: 'users', prefix: '/users' })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = Number(new URL(origin).port)
  })
  after(() => t.close())

  /** Sends `text` on a fresh connection and returns everything the server wrote before closing. */
  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(text))
      let received = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => {
        received += chunk
      })
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
    })

  async function expectDetailOver(res: Response, status: number, detail: string): Promise<void> {
    assert.match(String(res.headers.get('content-type')), /^application\/json/)
    assert.deepEqual({ status: res.status, body: await res.json() }, { status, body: { detail } })
  }

  function expectRawDetail(answer: string, status: number, detail: string): void {
    const [head = '', body = ''] = answer.split('\r\n\r\n')
    assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), answer)
    assert.match(head, /content-type: application\/json/i, answer)
    assert.deepEqual(JSON.parse(body), { detail })
  }

  it('a URL that is not valid percent-encoding: 400 with a detail', async () => {
    await expectDetailOver(await fetch(`${origin}/users/%E0%A4%A`), 400, 'Invalid URL: malformed percent-encoding')
  })

  it('a path parameter longer than maxParamLength: 414 with a detail', async () => {
    await expectDetailOver(await fetch(`${origin}/users/${'a'.repeat(200)}`), 414, 'A path parameter is longer than the limit (maxParamLength)')
  })

  it('headers larger than maxHeaderSize: 431 with a detail', async () => {
    const res = await fetch(`${origin}/users`, { headers: { 'x-large': 'a'.repeat(64 * 1024) } })
    await expectDetailOver(res, 431, 'Request header fields too large (the URL and headers exceed the size limit)')
  })

  it('a URL larger than maxHeaderSize: 431 with a detail', async () => {
    const answer = await raw(`GET /users?q=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    expectRawDetail(answer, 431, 'Request header fields too large (the URL and headers exceed the size limit)')
  })

  it('a request the HTTP parser cannot read: 400 with a detail', async () => {
    expectRawDetail(await raw('NOT HTTP AT ALL\r\n\r\n'), 400, 'Bad request: the HTTP request could not be parsed')
  })
})

describe('on a plain Fastify instance (no createApp)', () => {
  it('the router\'s own errors are { detail }, the framework\'s keep Fastify\'s shape', async () => {
    const db = await openEmbedded()
    const app = Fastify()
    try {
      await app.register(CRUDRouter, { db, model: User, collectionName: 'users', prefix: '/users' })
      const invalid = await app.inject({ method: 'POST', url: '/users', payload: { name: 1 } })
      assert.equal(invalid.statusCode, 422)
      assert.ok(Array.isArray(invalid.json().detail), invalid.body)
      const badUrl = await app.inject({ method: 'GET', url: '/users/%E0%A4%A' })
      assert.equal(badUrl.statusCode, 400)
      assert.deepEqual(Object.keys(badUrl.json()).sort(), ['code', 'error', 'message', 'statusCode'])
    } finally {
      await app.close()
      await db.close()
    }
  })
})
