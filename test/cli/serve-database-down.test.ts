// `fastify-mongo-crud serve` on MONGODB_URI, its database stopped under it: requests answer 503 with
// Retry-After within serve's server selection bound (5 s, not the driver's 30 s), and the process, never
// restarted, serves again once the database is back on the same port and data directory
// (docs/http-contract.md). The database is the engine behind its wire server, in this process.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '@fastify-mongo-crud/embedded'
import { type RunningCli, startCli } from '../harness/cli.ts'

const API = {
  title: 'Notes',
  version: '1.0.0',
  models: { Note: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } },
}

const UNAVAILABLE = 'The database cannot be reached (it is down, restarting or out of reach): retry in a moment'
const WRITE_OUTCOME_UNKNOWN =
  'The database could not be reached while this write ran: whether it was stored is not known. Retry in a moment; with If-Match (or, for a create with its id, If-None-Match: *) a retry applies it at most once'
/** Requests sent after the database is back before one must succeed (the driver reconnects on the first). */
const RECONNECT_ATTEMPTS = 5

const create = (cli: RunningCli, text: string) =>
  fetch(`${cli.origin}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) })

describe('fastify-mongo-crud serve, its database stopped and started again', { timeout: 120_000 }, () => {
  it('answers 503 with Retry-After while it is down, and serves again once it is back, without a restart', async (t) => {
    const work = await mkdtemp(join(tmpdir(), 'fmc-serve-down-'))
    const file = join(work, 'api.json')
    await writeFile(file, JSON.stringify(API))
    const data = join(work, 'data')
    let engine: EmbeddedDb = await openEmbedded({ path: data })
    let server: WireServer | undefined = await startWireServer(engine)
    const { port } = server
    let cli: RunningCli | undefined
    try {
      cli = await startCli(['serve', file], { MONGODB_URI: server.uri.replace(/\/?$/, '/notes') })
      const first = (await (await create(cli, 'before')).json()) as { id: string }

      await server.close()
      server = undefined
      await engine.close()
      const started = performance.now()
      const [list, one, created] = await Promise.all([fetch(`${cli.origin}/notes`), fetch(`${cli.origin}/notes/${first.id}`), create(cli, 'while down')])
      t.diagnostic(`three requests answered ${[list, one, created].map((res) => res.status).join(', ')} together in ${Math.round(performance.now() - started)} ms`)
      for (const [res, detail] of [[list, UNAVAILABLE], [one, UNAVAILABLE], [created, WRITE_OUTCOME_UNKNOWN]] as const) {
        assert.equal(res.status, 503)
        assert.equal(res.headers.get('retry-after'), '5')
        assert.deepEqual(await res.json(), { detail })
      }

      // The connections the stop cut fail at once; once the driver knows the server is gone, a request
      // waits for server selection (serve's bound) before its 503.
      const later = performance.now()
      const waited = await fetch(`${cli.origin}/notes/${first.id}`)
      t.diagnostic(`a request sent once the driver knew answered ${waited.status} in ${Math.round(performance.now() - later)} ms`)
      assert.equal(waited.status, 503)
      assert.deepEqual(await waited.json(), { detail: UNAVAILABLE })

      engine = await openEmbedded({ path: data })
      server = await startWireServer(engine, { port })
      const back = performance.now()
      let attempts = 0
      let answer: Response | undefined
      while (attempts < RECONNECT_ATTEMPTS && answer?.status !== 200) {
        attempts++
        answer = await fetch(`${cli.origin}/notes/${first.id}`)
      }
      t.diagnostic(`the first request answered 200 after ${attempts} attempt(s), ${Math.round(performance.now() - back)} ms after the database was back`)
      assert.equal(answer?.status, 200)
      assert.equal((await create(cli, 'after')).status, 201)
      const texts = ((await (await fetch(`${cli.origin}/notes`)).json()) as { text: string }[]).map((note) => note.text)
      // Nothing reached the stopped database: the create sent meanwhile is not there.
      assert.deepEqual(texts.sort(), ['after', 'before'])
      assert.equal(await cli.stop(), 0)
    } finally {
      await cli?.stop('SIGKILL')
      await server?.close()
      await engine.close()
      await rm(work, { recursive: true, force: true })
    }
  })
})
