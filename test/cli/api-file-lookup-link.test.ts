import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, type ApiFileIssue, buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { locate } from './locate.ts'

/**
 * `check` refuses a lookup whose `localField` is not a safe link, at that `localField`, in the words
 * registration uses (test/security/lookup-local-field.test.ts has the attacks).
 */
const file = (project: Record<string, unknown>, required = ['name', 'code']) => ({
  models: {
    Project: { type: 'object', properties: { name: { type: 'string' }, code: { type: 'string' } }, required },
    Task: { type: 'object', properties: { title: { type: 'string' }, projectCode: { type: 'string' } }, required: ['title', 'projectCode'] },
  },
  routers: {
    projects: {
      prefix: '/projects',
      collection: 'projects',
      model: 'Project',
      ...project,
      lookups: [{ prefix: 'tasks', collection: 'tasks', model: 'Task', localField: 'code', foreignField: 'projectCode' }],
    },
  },
})
const text = (value: unknown) => JSON.stringify(value, null, 2)

function issuesOf(source: string): string[] {
  try {
    parseApiFile(source, 'api.json')
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue: ApiFileIssue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
  return []
}

describe('API file: a lookup on a field other than _id', () => {
  it('is refused at its localField when the field is not unique', () => {
    for (const project of [{}, { indexes: [{ key: { code: 1, name: 1 }, unique: true }] }, { indexes: [{ key: { code: 1 } }] }]) {
      const t = text(file(project))
      const issues = issuesOf(t)
      assert.equal(issues.length, 1, issues.join('\n'))
      assert.ok(issues[0]!.startsWith(`${locate(t, '"code"', locate(t, '"localField"'))} 'localField' 'code' is not unique`), issues[0])
      assert.match(issues[0]!, /identifierField/)
      assert.match(issues[0]!, /\(\/routers\/projects\/lookups\/0\/localField\)$/)
    }
  })

  it('is refused at its localField when the model does not require the field', () => {
    const t = text(file({ indexes: [{ key: { code: 1 }, unique: true }] }, ['name']))
    const issues = issuesOf(t)
    assert.equal(issues.length, 1, issues.join('\n'))
    assert.match(issues[0]!, /'localField' 'code' is not required by the model Project/)
  })

  it("is accepted on the router's identifierField or a field with a unique index of its own, and serves", async () => {
    for (const project of [{ identifierField: 'code' }, { indexes: [{ key: { code: 1 }, unique: true }] }]) {
      const loaded = parseApiFile(text(file(project)), 'api.json')
      const db = await openEmbedded()
      const app = await buildApiApp(loaded, db, { fastify: { logger: false } })
      try {
        const created = await app.inject({ method: 'POST', url: '/projects', payload: { name: 'a', code: 'ALPHA' } })
        assert.equal(created.statusCode, 201, created.body)
        const parent = 'identifierField' in project ? 'ALPHA' : created.json().id
        const task = await app.inject({ method: 'POST', url: `/projects/${parent}/tasks`, payload: { title: 't' } })
        assert.equal(task.statusCode, 201, task.body)
        assert.equal(task.json().projectCode, 'ALPHA')
      } finally {
        await app.close()
        await db.close()
      }
    }
  })
})
