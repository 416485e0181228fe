// The README's commands, in the order it writes them, on a fresh copy of the repository: what a new user
// types in the first minutes. Before the commands were committed files, `npx fastify-mongo-crud` answered
// "not found" here: npm links a package's commands when it installs it, which is before `npm start` builds
// dist/. The copy is the tracked (and new, not ignored) files of this working tree, so the test sees what a
// clone of this commit would hold; its `npm install` takes the registry's packages (npm's cache first).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { line, type Running, readme, run, start } from '../harness/readme-shell.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const engineReadme = await readFile(join(root, 'packages/embedded/README.md'), 'utf8')

describe("the README's commands, in order, on a fresh copy of the repository", { timeout: 900_000 }, () => {
  let dir: string
  const running: Running[] = []
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-fresh-'))
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '')
    for (const file of files) {
      // A tracked file deleted in the working tree is not part of what would be committed.
      const exists = await stat(join(root, file)).then(() => true, () => false)
      if (exists) await cp(join(root, file), join(dir, file), { recursive: true, verbatimSymlinks: true })
    }
  })
  after(async () => {
    await Promise.all(running.map((r) => r.stop()))
    await rm(dir, { recursive: true, force: true })
  })

  it('npm install && npm start: the demo API on the embedded engine, with /docs and /redoc, data in ./data', async () => {
    const command = line('npm install && npm start')
    // PORT=0: a free port, so that nothing else on the machine can be in the way (the README's is 8000).
    const demo = await start(command, dir, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/, { PORT: '0' })
    running.push(demo)
    const origin = demo.found[1]!
    assert.equal((await fetch(`${origin}/docs`)).status, 200)
    assert.equal((await fetch(`${origin}/redoc`)).status, 200)
    assert.equal((await fetch(`${origin}/api/v1/users`)).status, 200)
    assert.equal(await demo.stop(), 0)
    assert.ok((await stat(join(dir, 'data'))).isDirectory())
  })

  it('npx fastify-mongo-crud serve api.json: the demo file, its $schema resolving from the installed package, data in ./data', async () => {
    const schema = (JSON.parse(await readFile(join(dir, 'api.json'), 'utf8')) as { $schema: string }).$schema
    assert.ok((await stat(join(dir, schema))).isFile(), `${schema} does not resolve in the fresh copy`)
    await rm(join(dir, 'data'), { recursive: true, force: true })
    const serve = await start(line('npx fastify-mongo-crud serve api.json '), dir, /listening on (http:\/\/\S+)/, { PORT: '0' })
    running.push(serve)
    assert.equal((await fetch(`${serve.found[1]}/docs`)).status, 200)
    assert.equal(await serve.stop(), 0)
    assert.ok((await stat(join(dir, 'data'))).isDirectory(), 'the data directory is not ./data beside api.json')
  })

  it('PORT=... npx fastify-mongo-crud serve api.json: PORT is honoured', async () => {
    const command = line('PORT=3000 npx fastify-mongo-crud serve api.json')
    const serve = await start(command.replace('PORT=3000', 'PORT=0'), dir, /listening on (http:\/\/127\.0\.0\.1:(\d+))/)
    running.push(serve)
    assert.notEqual(serve.found[2], '8000')
    assert.equal((await fetch(`${serve.found[1]}/api/v1/users`)).status, 200)
    assert.equal(await serve.stop(), 0)
  })

  it('npx fastify-mongo-crud serve api.json --data ./data', async () => {
    const serve = await start(line('npx fastify-mongo-crud serve api.json --data ./data'), dir, /listening on (http:\/\/\S+) \(([^)]*)\)/, { PORT: '0' })
    running.push(serve)
    assert.match(serve.found[2]!, /data/)
    assert.equal((await fetch(`${serve.found[1]}/api/v1/users`)).status, 200)
    assert.equal(await serve.stop(), 0)
  })

  it('MONGODB_URI=... npx fastify-mongo-crud serve api.json, on the engine\'s wire server (npx fastify-mongo-crud-db)', async () => {
    const dbLine = /`(npx fastify-mongo-crud-db --port 27017 --path \.\/data)`/.exec(readme)?.[1]
    assert.ok(dbLine, 'README.md no longer shows `npx fastify-mongo-crud-db --port 27017 --path ./data`')
    assert.match(engineReadme, /fastify-mongo-crud-db/)
    const db = await start(dbLine.replace('--port 27017', '--port 0'), dir, /listening on ([\d.]+):(\d+)/)
    running.push(db)
    const command = line('MONGODB_URI=mongodb://localhost/shop npx fastify-mongo-crud serve api.json')
    const uri = `mongodb://${db.found[1]}:${db.found[2]}/shop`
    const serve = await start(command.replace('mongodb://localhost/shop', uri), dir, /listening on (http:\/\/\S+) \(([^)]*)\)/, { PORT: '0' })
    running.push(serve)
    assert.match(serve.found[2]!, /MongoDB/i)
    const created = await fetch(`${serve.found[1]}/api/v2/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ann', email: 'ann@example.com', password: 'secret-ann' }),
    })
    assert.equal(created.status, 201)
    assert.equal(await serve.stop(), 0)
    assert.equal(await db.stop(), 0)
  })

  it('npx fastify-mongo-crud check api.json: OK, exit code 0', () => {
    const { code, output } = run(line('npx fastify-mongo-crud check api.json'), dir)
    assert.equal(code, 0, output)
  })

  it('npx fastify-mongo-crud init, import todos todos.ndjson, serve api.json: the first minute, in a folder of its own', async () => {
    const folder = join(dir, 'first-minute')
    await mkdir(folder)
    const init = run(line('npx fastify-mongo-crud init'), folder)
    assert.equal(init.code, 0, init.output)
    await writeFile(join(folder, 'todos.ndjson'), '{"title":"from my data"}\n')
    const imported = run(line('npx fastify-mongo-crud import todos todos.ndjson'), folder)
    assert.equal(imported.code, 0, imported.output)
    const serve = await start(line('npx fastify-mongo-crud serve api.json '), folder, /listening on (http:\/\/\S+)/, { PORT: '0' })
    running.push(serve)
    const todos = (await (await fetch(`${serve.found[1]}/todos`)).json()) as Array<{ title: string; done: boolean }>
    assert.deepEqual(todos.map(({ title, done }) => ({ title, done })), [{ title: 'from my data', done: false }])
    assert.equal(await serve.stop(), 0)
  })
})
