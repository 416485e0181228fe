// The demo's OpenAPI document passes @redocly/cli's recommended rules with no error (issue 12, item 8):
// what client generators and linters need (operationIds, security schemes, servers, license) is there.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyInstance } from 'fastify'
import { buildApiApp, loadApiFile } from 'fastify-mongo-crud/api-file'
import { buildDemo } from '../../examples/build-demo.ts'
import type { Json } from '../harness/seed.ts'

const run = promisify(execFile)
const REDOCLY = join(import.meta.dirname, '../../node_modules/.bin/redocly')

interface LintReport {
  totals: { errors: number, warnings: number }
  problems: Array<{ ruleId: string, severity: string, message: string, location: Array<{ pointer: string }> }>
}

/** Runs `redocly lint --format json` on a document; it exits non-zero when it finds errors, so the report is read either way. */
async function lint(document: unknown): Promise<LintReport> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-openapi-lint-'))
  try {
    const file = join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(document))
    const output = await run(REDOCLY, ['lint', file, '--format', 'json'], { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } })
      .then((result) => result.stdout, (error: { stdout?: string }) => error.stdout ?? '')
    return JSON.parse(output.slice(output.indexOf('{'))) as LintReport
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

describe("the demo's OpenAPI document under redocly lint (recommended rules)", { timeout: 60_000 }, () => {
  let db: EmbeddedDb
  let app: FastifyInstance
  let spec: Json
  let report: LintReport
  before(async () => {
    db = await openEmbedded()
    app = await buildDemo(db, { logger: false })
    const res = await app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200)
    spec = res.json()
    report = await lint(spec)
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  it('has no error', () => {
    const errors = report.problems.filter((problem) => problem.severity === 'error')
    assert.deepEqual(errors.map((e) => `${e.ruleId} at ${e.location[0]?.pointer}: ${e.message}`), [])
    assert.equal(report.totals.errors, 0)
  })

  it('has no warning either', () => {
    assert.deepEqual(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`), [])
  })

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(spec.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) => Object.values(ops).map((op) => op.operationId))
    assert.ok(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id)), String(ids))
    assert.equal(new Set(ids).size, ids.length)
  })

  it('names operations after the router: listUsers, getUser, ... and listUserV1Messages under a parent', () => {
    assert.equal(spec.paths['/api/v2/users'].get.operationId, 'listUsers')
    assert.equal(spec.paths['/api/v2/users/{email}'].get.operationId, 'getUser')
    assert.equal(spec.paths['/api/v1/users'].post.operationId, 'createUserV1')
    assert.equal(spec.paths['/api/v1/users/{id}/messages'].get.operationId, 'listUserV1Messages')
    assert.equal(spec.paths['/api/v1/users/{id}/addresses/{embed_id}'].patch.operationId, 'updateUserV1Address')
  })

  it('writes summaries with the singular and plural of the names', () => {
    assert.equal(spec.paths['/api/v2/artists'].get.summary, 'List artists')
    assert.equal(spec.paths['/api/v2/artists/{id}'].get.summary, 'Get one artist')
    assert.equal(spec.paths['/api/v1/users/{id}/messages'].get.summary, 'List the messages of one user v1')
    assert.equal(spec.paths['/api/v1/users/{id}/addresses'].post.summary, 'Create one address of one user v1')
  })

  it('declares the security schemes and puts them on the operations their dependencies guard', () => {
    assert.deepEqual(Object.keys(spec.components.securitySchemes).sort(), ['adminRole', 'userId'])
    assert.deepEqual(spec.components.securitySchemes.adminRole, { type: 'apiKey', in: 'header', name: 'x-role', description: 'admin for administrators' })
    assert.deepEqual(spec.paths['/api/v2/users/{email}'].delete.security, [{ adminRole: [] }])
    assert.equal(spec.paths['/api/v2/users/{email}'].get.security, undefined)
    // A filterDependency runs on every route of its router, children included.
    for (const method of ['get', 'post']) assert.deepEqual(spec.paths['/api/v2/notes'][method].security, [{ userId: [] }])
    assert.deepEqual(spec.security, [])
  })

  it('has servers, a license and tag descriptions', () => {
    assert.deepEqual(spec.servers, [{ url: '/' }])
    assert.equal(spec.info.license.name, 'MIT')
    assert.ok((spec.tags as Array<{ name: string, description?: string }>).every((tag) => typeof tag.description === 'string'))
  })

  it('shows sort_by as an enum of the sortable fields, order_by as ASC/DESC, skip and limit with examples and no safe-integer maximum', () => {
    const params = spec.paths['/api/v2/artists'].get.parameters as Array<{ name: string, schema: Json, example?: unknown }>
    const param = (name: string) => params.find((p) => p.name === name)!
    assert.deepEqual(param('sort_by').schema.enum, ['id', 'name', 'country'])
    assert.deepEqual(param('order_by').schema, { type: 'string', enum: ['ASC', 'DESC'] })
    assert.deepEqual(param('skip').schema, { type: 'integer', minimum: 0 })
    assert.deepEqual(param('limit').schema, { type: 'integer', minimum: 1 })
    assert.equal(param('skip').example, 0)
    assert.equal(param('limit').example, 20)
    assert.ok(!JSON.stringify(spec).includes(String(Number.MAX_SAFE_INTEGER)))
  })

  it('marks id readOnly in the create and replace body (Try it out leaves it out)', () => {
    assert.equal(spec.components.schemas.Artist.properties.id.readOnly, true)
  })
})

describe("the file demo's OpenAPI document (api.json) under redocly lint", { timeout: 60_000 }, () => {
  it('has no error and no warning', async () => {
    const db = await openEmbedded()
    try {
      const loaded = await loadApiFile(fileURLToPath(new URL('../../api.json', import.meta.url)))
      const app = await buildApiApp(loaded, db, { fastify: { logger: false } })
      const spec = (await app.inject('/openapi.json')).json()
      await app.close()
      const report = await lint(spec)
      assert.deepEqual(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`), [])
    } finally {
      await db.close()
    }
  })
})
