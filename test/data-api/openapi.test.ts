import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import type { Json } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'
import { BASE, type DataApiTestApp, dataApiApp } from './data-api-harness.ts'

const run = promisify(execFile)
const REDOCLY = join(import.meta.dirname, '../../node_modules/.bin/redocly')
const ACTIONS = ['findOne', 'find', 'insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'aggregate']

describe('the Data API in /openapi.json', { timeout: 60_000 }, () => {
  let t: DataApiTestApp
  let spec: Json
  before(async () => {
    t = await dataApiApp(storeModes[0]!)
    spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  })
  after(() => t.close())

  it('documents each action: its operationId, its body in JSON and Extended JSON, its answer and its errors', () => {
    for (const action of ACTIONS) {
      const operation = spec.paths[`${BASE}/action/${action}`]?.post
      assert.ok(operation, action)
      assert.equal(operation.operationId, `dataApi${action[0]!.toUpperCase()}${action.slice(1)}`)
      assert.deepEqual(Object.keys(operation.requestBody.content).sort(), ['application/ejson', 'application/json'])
      const body = operation.requestBody.content['application/json'].schema
      assert.deepEqual(body.properties.collection.enum, ['items', 'reviews'])
      const success = action.startsWith('insert') ? '201' : '200'
      assert.ok(operation.responses[success], `${action} answers ${success}`)
      for (const status of ['400', '401', '403', '413']) assert.deepEqual(operation.responses[status].content['application/json'].schema.required, ['error', 'error_code'])
      assert.deepEqual(operation.parameters.map((parameter: Json) => parameter.name).sort(), ['apiKey', 'jwtTokenString'])
    }
    assert.ok(spec.paths[`${BASE}/action/insertOne`].post.responses['422'])
  })

  it('passes redocly lint with no error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fmc-data-api-lint-'))
    try {
      const file = join(dir, 'openapi.json')
      await writeFile(file, JSON.stringify(spec))
      const output = await run(REDOCLY, ['lint', file, '--format', 'json'], { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } }).then(
        (result) => result.stdout,
        (error: { stdout?: string }) => error.stdout ?? ''
      )
      const report = JSON.parse(output.slice(output.indexOf('{'))) as { problems: Array<{ ruleId: string, severity: string, message: string, location: Array<{ pointer: string }> }> }
      const errors = report.problems.filter((problem) => problem.severity === 'error' && problem.location[0]?.pointer.includes('data-api'))
      assert.deepEqual(errors.map((e) => `${e.ruleId} at ${e.location[0]?.pointer}: ${e.message}`), [])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
