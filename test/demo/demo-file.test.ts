import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { buildApiApp, loadApiFile } from 'fastify-mongo-crud/api-file'
import { buildDemo } from '../../examples/build-demo.ts'
import { type RunningCli, startCli } from '../harness/cli.ts'

const API_JSON = fileURLToPath(new URL('../../api.json', import.meta.url))

type Operation = { operationId?: string, security?: unknown, parameters?: unknown, requestBody?: unknown, responses: Record<string, unknown>, tags?: unknown }
type Spec = {
  info: unknown
  tags?: unknown
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Record<string, unknown>>, securitySchemes?: unknown }
}

/**
 * api.json declares the demo of examples/build-demo.ts: the same routes, parameters, bodies,
 * success answers and models. (Its models also carry the descriptions the code keeps in comments, and
 * its scoped notes routes check the x-user header in a dependency, documented as a possible 403.)
 */
describe('api.json serves the demo of examples/build-demo.ts', () => {
  let fromCode: Spec
  let fromFile: Spec
  before(async () => {
    const db = await openEmbedded()
    try {
      const code = await buildDemo(db, { logger: false })
      const file = await buildApiApp(await loadApiFile(API_JSON), db, { fastify: { logger: false } })
      fromCode = (await code.inject('/openapi.json')).json()
      fromFile = (await file.inject('/openapi.json')).json()
      await code.close()
      await file.close()
    } finally {
      await db.close()
    }
  })

  it('has the same info (license included), tags with their descriptions, security schemes, paths and methods', () => {
    assert.deepEqual(fromFile.info, fromCode.info)
    assert.deepEqual(fromFile.tags, fromCode.tags)
    assert.deepEqual(fromFile.components.securitySchemes, fromCode.components.securitySchemes)
    const operations = (spec: Spec) => Object.entries(spec.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
    assert.deepEqual(operations(fromFile), operations(fromCode))
  })

  it('has the same operationIds, security, parameters, request bodies, tags and success responses on every operation', () => {
    for (const [path, item] of Object.entries(fromCode.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const other = fromFile.paths[path]![method]!
        const success = (op: Operation) => Object.fromEntries(Object.entries(op.responses).filter(([status]) => status.startsWith('2')))
        // A body written inline (a model with defaulted fields: docs/clients.md) is described by its model, which only the file describes.
        const body = (op: Operation) => JSON.parse(JSON.stringify(op.requestBody ?? null, (key, value) => (key === 'description' && typeof value === 'string' ? undefined : value)))
        const compared = (op: Operation) => [op.operationId, op.security, op.parameters, body(op), op.tags, success(op)]
        assert.deepEqual(compared(other), compared(operation), `${method} ${path}`)
      }
    }
  })

  it('has the same models, descriptions aside', () => {
    const strip = (schemas: Spec['components']['schemas']) => Object.fromEntries(Object.entries(schemas).map(([name, { description: _, ...schema }]) => [name, schema]))
    assert.deepEqual(strip(fromFile.components.schemas), strip(fromCode.components.schemas))
  })
})

describe('npx fastify-mongo-crud serve api.json', { timeout: 120_000 }, () => {
  let dir: string
  let cli: RunningCli
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-demo-file-'))
    cli = await startCli(['serve', API_JSON, '--data', join(dir, 'data')])
  })
  after(async () => {
    await cli?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('honours PORT (0: a free port), serves /docs and the demo routes', async () => {
    assert.match(cli.origin, /^http:\/\/127\.0\.0\.1:\d+$/)
    const docs = await fetch(`${cli.origin}/docs`)
    assert.equal(docs.status, 200)
    const created = await fetch(`${cli.origin}/api/v2/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ann', email: 'ann@example.com', password: 'secret-ann' }),
    })
    assert.equal(created.status, 201)
    const ann = (await created.json()) as { id: string }
    assert.deepEqual(await (await fetch(`${cli.origin}/api/v1/users/${ann.id}`)).json(), { id: ann.id, name: 'Ann', email: 'ann@example.com' })
    assert.equal((await fetch(`${cli.origin}/api/v2/notes`)).status, 401)
  })

  it('stops on SIGTERM with exit code 0', async () => {
    assert.equal(await cli.stop(), 0)
  })
})
