import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runCli, startCli } from '../harness/cli.ts'

const API = {
  models: { Note: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } },
}

/**
 * What `serve` prints: where its docs and its data are, then its log, in human lines when FMC_LOG_FORMAT says
 * `pretty` (what a terminal gets without it; test/http/log-format.test.ts runs createApp on one) and JSON lines
 * otherwise (serve-open-internet.test.ts reads them).
 */
describe('fastify-mongo-crud serve: start lines and log format', { timeout: 120_000 }, () => {
  let dir: string
  let file: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-serve-log-'))
    file = join(dir, 'api.json')
    await writeFile(file, JSON.stringify(API, null, 2))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  it('says where its docs and its data are; FMC_LOG_FORMAT=pretty logs each request in a human line', async () => {
    const data = join(dir, 'data')
    const cli = await startCli(['serve', file, '--log-level', 'info', '--data', data], { FMC_LOG_FORMAT: 'pretty' })
    try {
      assert.equal((await fetch(`${cli.origin}/notes?limit=3`)).status, 200)
    } finally {
      assert.equal(await cli.stop(), 0)
    }
    const lines = cli.stdout().split('\n')
    assert.ok(lines.includes(`fastify-mongo-crud: listening on ${cli.origin} (embedded engine, data in ${data})`), cli.stdout())
    const docs = `fastify-mongo-crud: docs at ${cli.origin}/docs and ${cli.origin}/redoc, OpenAPI document at ${cli.origin}/openapi.json. Ctrl-C stops.`
    assert.ok(lines.includes(docs), cli.stdout())
    const time = String.raw`^\[\d\d:\d\d:\d\d\.\d{3}\]`
    assert.ok(lines.some((line) => new RegExp(`${time} INFO: req-\\w+ incoming request \\{"req":\\{"method":"GET","url":"/notes\\?limit=3"`).test(line)), cli.stdout())
    assert.ok(lines.some((line) => new RegExp(`${time} INFO: req-\\w+ request completed \\{"res":\\{"statusCode":200\\}`).test(line)), cli.stdout())
    assert.ok(!lines.some((line) => line.startsWith('{')), 'no JSON line')
  })

  it('a FMC_LOG_FORMAT that is neither pretty nor json: exit code 1, one sentence', async () => {
    const { code, stdout, stderr } = await runCli(['serve', file, '--data', join(dir, 'unused')], { FMC_LOG_FORMAT: 'loud' })
    assert.equal(code, 1)
    assert.equal(stderr, `fastify-mongo-crud: FMC_LOG_FORMAT must be 'pretty' or 'json', got "loud"\n`)
    assert.equal(stdout, '')
  })
})
