import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SignJWT } from 'jose'
import { parseServeArgs, UsageError } from '../../packages/fastify-mongo-crud/src/cli/parse-serve-args.ts'
import { runCli, startCli } from '../harness/cli.ts'
import { locate } from './locate.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'

/** Notes for signed-in callers (a JWT), deleted through a gateway's x-role header. */
const API = {
  auth: { type: 'jwt', secretEnv: 'NOTES_JWT_SECRET' },
  models: { Note: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note', guards: { deleteOne: [{ header: 'x-role', equals: 'admin' }] } } },
}

describe('fastify-mongo-crud serve: tokens, logging and the headers it trusts', { timeout: 120_000 }, () => {
  let dir: string
  let file: string
  let text: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-serve-auth-'))
    file = join(dir, 'api.json')
    text = JSON.stringify(API, null, 2)
    await writeFile(file, text)
  })
  after(() => rm(dir, { recursive: true, force: true }))

  it('--log-level: one of the logger levels, over the file', () => {
    assert.equal((parseServeArgs(['serve', 'api.json', '--log-level', 'info'], {}) as { logLevel?: string }).logLevel, 'info')
    assert.equal('logLevel' in parseServeArgs(['serve', 'api.json'], {}), false)
    assert.throws(
      () => parseServeArgs(['serve', 'api.json', '--log-level', 'loud'], {}),
      (error) => error instanceof UsageError && error.message === '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'
    )
  })

  it('an unset secretEnv stops the start: exit code 1, the variable named at its line', async () => {
    const { code, stderr } = await runCli(['serve', file])
    assert.equal(code, 1)
    assert.equal(stderr, `${file}: 1 error\n${file}:${locate(text, '"NOTES_JWT_SECRET"')}: the environment variable NOTES_JWT_SECRET is not set: it holds the secret the tokens are signed with (at /auth/secretEnv)\n`)
  })

  it('serves with the secret from the environment, logs every request at --log-level info, and says which headers it trusts', async () => {
    const cli = await startCli(['serve', file, '--log-level', 'info'], { NOTES_JWT_SECRET: SECRET })
    try {
      assert.match(cli.stdout(), /fastify-mongo-crud: guards and scopes trust the headers x-role as they arrive: serve behind a gateway that sets them, or verify tokens with 'auth'\n/)
      const refused = await fetch(`${cli.origin}/notes`)
      assert.equal(refused.status, 401)
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer')
      const token = await new SignJWT({ sub: 'a' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET))
      assert.equal((await fetch(`${cli.origin}/notes?limit=3`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
    } finally {
      assert.equal(await cli.stop(), 0)
    }
    const logged = cli
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string, req?: { url: string }, res?: { statusCode: number } })
    assert.ok(logged.some((line) => line.msg === 'incoming request' && line.req?.url === '/notes?limit=3'))
    assert.deepEqual(logged.filter((line) => line.msg === 'request completed').map((line) => line.res?.statusCode), [401, 200])
  })
})
