import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { verifyApiFile } from 'fastify-mongo-crud/api-file'
import { initProject } from '../../packages/fastify-mongo-crud/src/cli/init-project.ts'
import { starterApiFile } from '../../packages/fastify-mongo-crud/src/cli/starter-api-file.ts'
import { runCli, startCli } from '../harness/cli.ts'

const fresh = () => mkdtemp(join(tmpdir(), 'fmc-init-'))

/** Runs init in-process in `dir`; answers what it printed. */
async function init(dir: string): Promise<string[]> {
  const lines: string[] = []
  await initProject(dir, (line) => lines.push(line))
  return lines
}

describe('fastify-mongo-crud init', { timeout: 120_000 }, () => {
  let dir: string
  before(async () => {
    dir = await fresh()
  })
  after(() => rm(dir, { recursive: true, force: true }))

  it('in an empty folder: writes api.json and a .gitignore ignoring /data/, says what it wrote and what to run next', async () => {
    const { code, stdout, stderr } = await runCli(['init'], {}, dir)
    assert.equal(code, 0, stderr)
    assert.deepEqual(stdout.split('\n'), [
      'fastify-mongo-crud: wrote api.json (a model Todo, served at /todos; data in ./data)',
      'fastify-mongo-crud: wrote .gitignore (/data/: the data stays out of git)',
      'Next: npx fastify-mongo-crud serve api.json   (docs at http://127.0.0.1:8000/docs)',
      '',
    ])
    assert.equal(await readFile(join(dir, 'api.json'), 'utf8'), starterApiFile())
    assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), '/data/\n')
  })

  it('the starter names the installed package\'s schema as the demo\'s api.json does, explains itself in description fields, and passes check', async () => {
    const text = await readFile(join(dir, 'api.json'), 'utf8')
    const starter = JSON.parse(text) as { $schema: string, description: string, database: unknown, models: Record<string, { description: string, properties: Record<string, { description: string }> }> }
    const demo = JSON.parse(await readFile(new URL('../../api.json', import.meta.url), 'utf8')) as { $schema: string }
    assert.equal(starter.$schema, demo.$schema)
    assert.deepEqual(starter.database, { engine: 'embedded', path: './data' })
    assert.match(starter.description, /docs\/api-file\.md$/)
    const todo = starter.models['Todo']!
    assert.ok(todo.description.length > 0)
    for (const [name, field] of Object.entries(todo.properties)) assert.ok(field.description.length > 0, name)
    const checked = await verifyApiFile(text, 'api.json', dir)
    assert.deepEqual(Object.keys(checked.api.routers), ['todos'])
  })

  it('the first minute: init, import todos, serve; what its descriptions promise holds, the data in ./data', async () => {
    await writeFile(join(dir, 'todos.ndjson'), '{"title":"imported"}\n')
    const imported = await runCli(['import', 'todos', 'todos.ndjson'], {}, dir)
    assert.equal(imported.stdout, `fastify-mongo-crud: imported 1 document into todos (embedded engine, data in ${join(dir, 'data')})\n`, imported.stderr)
    const cli = await startCli(['serve', 'api.json'], {}, dir)
    try {
      assert.deepEqual(((await (await fetch(`${cli.origin}/todos`)).json()) as Array<{ title: string, done: boolean }>).map(({ title, done }) => ({ title, done })), [{ title: 'imported', done: false }])
      assert.match(cli.stdout(), new RegExp(`listening on http://127\\.0\\.0\\.1:\\d+ \\(embedded engine, data in ${join(dir, 'data')}\\)`))
      const post = (body: unknown) => fetch(`${cli.origin}/todos`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const created = await post({ title: 'write the docs', due: '2030-01-31' })
      assert.equal(created.status, 201)
      const todo = (await created.json()) as { id: string }
      assert.deepEqual(todo, { id: todo.id, title: 'write the docs', done: false, due: '2030-01-31' })
      assert.equal((await post({ done: true })).status, 422, 'title is required')
      assert.equal((await post({ title: 'x', colour: 'red' })).status, 422, 'a field the model does not declare is refused')
      assert.equal((await post({ title: 'x', due: 'tomorrow' })).status, 422, 'due is a date')
      assert.equal((await fetch(`${cli.origin}/docs`)).status, 200)
    } finally {
      assert.equal(await cli.stop('SIGINT'), 0)
    }
    assert.ok(existsSync(join(dir, 'data')))
  })

  it('api.json exists: exit code 1, and nothing is changed (api.json, .gitignore)', async () => {
    await writeFile(join(dir, 'api.json'), '{ "mine": true }\n')
    await writeFile(join(dir, '.gitignore'), 'node_modules\n')
    const { code, stdout, stderr } = await runCli(['init'], {}, dir)
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.equal(stderr, 'fastify-mongo-crud: api.json exists already: init changed nothing. Serve it with `fastify-mongo-crud serve api.json`, or run init in another folder\n')
    assert.equal(await readFile(join(dir, 'api.json'), 'utf8'), '{ "mine": true }\n')
    assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), 'node_modules\n')
  })

  it('a .gitignore that exists is kept: /data/ is added unless a line already ignores the data directory', async () => {
    const cases: Array<[string, string, string]> = [
      ['node_modules', 'node_modules\n/data/\n', 'fastify-mongo-crud: added /data/ to .gitignore (the data stays out of git)'],
      ['', '/data/\n', 'fastify-mongo-crud: added /data/ to .gitignore (the data stays out of git)'],
      ['node_modules\r\ndata/\r\n', 'node_modules\r\ndata/\r\n', 'fastify-mongo-crud: .gitignore already ignores ./data'],
      ['/data\n', '/data\n', 'fastify-mongo-crud: .gitignore already ignores ./data'],
      ['src/data/\n', 'src/data/\n/data/\n', 'fastify-mongo-crud: added /data/ to .gitignore (the data stays out of git)'],
    ]
    for (const [before, after, said] of cases) {
      const folder = await fresh()
      try {
        await writeFile(join(folder, '.gitignore'), before)
        assert.equal((await init(folder))[1], said, JSON.stringify(before))
        assert.equal(await readFile(join(folder, '.gitignore'), 'utf8'), after, JSON.stringify(before))
        assert.equal(await readFile(join(folder, 'api.json'), 'utf8'), starterApiFile())
      } finally {
        await rm(folder, { recursive: true, force: true })
      }
    }
  })
})
