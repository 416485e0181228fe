/**
 * docs/clients.md: the demo's OpenAPI document becomes a typed client with openapi-typescript and
 * openapi-fetch. The types are generated from the running demo (examples/build-demo.ts) and from the
 * demo's API file served by `fastify-mongo-crud serve`, each by the page's command; the page's client
 * compiles against both with `tsc --strict`, misuses of it do not, and it runs against the demo.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyInstance } from 'fastify'
import { buildDemo } from '../../examples/build-demo.ts'
import { type RunningCli, startCli } from '../harness/cli.ts'

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const MARKER = '<!-- typed-client:'
const DOC_URL = 'http://localhost:8000'

/** The ```ts block after the typed-client marker of docs/clients.md. */
async function clientOfTheDocs(): Promise<string> {
  const page = await readFile(join(root, 'docs/clients.md'), 'utf8')
  const at = page.indexOf(MARKER)
  assert.notEqual(at, -1, `docs/clients.md has no ${MARKER} marker`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(page.slice(at))
  assert.ok(block?.[1], 'no ```ts block after the typed-client marker')
  assert.ok(block[1].includes(DOC_URL), `the client no longer calls ${DOC_URL}`)
  return block[1]
}

function run(command: string, args: string[], cwd: string): Promise<{ status: number, output: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      done({ status, output: `${stdout}${stderr}` })
    })
  })
}

/** `npx openapi-typescript <url> -o <file>`, as the page says. */
async function generateTypes(url: string, file: string, cwd: string): Promise<string> {
  const generated = await run(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), url, '-o', file], cwd)
  assert.equal(generated.status, 0, generated.output)
  return readFile(join(cwd, file), 'utf8')
}

/** A fresh ESM project that resolves openapi-fetch (what `npm install openapi-fetch` gives) and Node's types. */
async function freshProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-typed-client-'))
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'typed-client', private: true, type: 'module' }))
  const compilerOptions = { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], types: [], noEmit: true, skipLibCheck: true }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }))
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  for (const name of ['openapi-fetch', 'openapi-typescript-helpers']) await symlink(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  return dir
}

/** Media types whose bodies are any JSON by their RFCs: a JSON Merge Patch (7396) and a JSON Patch's values (6902). */
const FREE_FORM = new Set(['application/merge-patch+json', 'application/json-patch+json'])

/**
 * Lines of the generated types that type something `unknown` or `any`: none, but the catch-all of response
 * headers, the free-form patch media types, and the `_batch` operations (docs/batch.md), whose types are
 * that page's to check.
 */
function untyped(types: string): string[] {
  let operation = ''
  let media = ''
  return types.split('\n').filter((line) => {
    operation = /^ {4}(\w+): \{$/.exec(line)?.[1] ?? operation
    media = /^\s+"(application\/[^"]+)": /.exec(line)?.[1] ?? media
    if (!/\b(unknown|any)\b/.test(line) || /\[name: string\]: unknown;/.test(line)) return false
    return !FREE_FORM.has(media) && !operation.startsWith('batch')
  })
}

/** Misuses of the client, each in a file of its own, and the error it must cause. */
const MISUSES: Record<string, [from: string, to: string, error: string]> = {
  'wrong-type': ["password: 'secret-ann' }", "password: 'secret-ann', age: 'old' }", "Type 'string' is not assignable to type 'number'"],
  'unknown-field': ["password: 'secret-ann' }", "password: 'secret-ann', nickname: 'annie' }", "'nickname' does not exist in type"],
  'missing-field': ["email: 'ann@example.com', password: 'secret-ann' }", "password: 'secret-ann' }", "Property 'email' is missing"],
  'groups-without-by': ["query: { by: ['role', 'age'], metrics: ['count', 'avg:age'] }", "query: { metrics: ['count', 'avg:age'] }", "Property 'by' is missing"],
  // `by` and `metrics` name the fields that may be grouped and measured, as lists of their names.
  'groups-by-unknown-field': ["by: ['role', 'age']", "by: ['role', 'citty']", `Type '"citty"' is not assignable to type`],
  'groups-by-as-text': ["by: ['role', 'age']", "by: 'role'", 'is not assignable to type'],
  'metric-no-field-allows': ['group.count}', 'group.sum_name}', "Property 'sum_name' does not exist"],
  'metric-of-no-number': ["'avg:age'", "'sum:name'", `Type '"sum:name"' is not assignable to type`],
}

describe('a typed client of the demo (docs/clients.md)', { timeout: 180_000 }, () => {
  let db: EmbeddedDb
  let app: FastifyInstance
  let served: RunningCli | undefined
  let dir = ''
  let data = ''
  const types: Record<'code' | 'file', string> = { code: '', file: '' }
  let compiled = { status: 0, output: '' }
  let client = ''
  before(async () => {
    db = await openEmbedded()
    app = await buildDemo(db, { logger: false })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    dir = await freshProject()
    data = await mkdtemp(join(tmpdir(), 'fmc-typed-client-data-'))
    served = await startCli(['serve', join(root, 'api.json'), '--data', data])
    assert.match(served.stdout(), new RegExp(`OpenAPI document at ${served.origin}/openapi.json`))
    types.code = await generateTypes(`${origin}/openapi.json`, 'api.d.ts', dir)
    types.file = await generateTypes(`${served.origin}/openapi.json`, 'api-file.d.ts', dir)
    client = await clientOfTheDocs()
    await writeFile(join(dir, 'client.ts'), client)
    await writeFile(join(dir, 'client-of-file.ts'), client.replace("from './api.js'", "from './api-file.js'"))
    for (const [name, [from, to]] of Object.entries(MISUSES)) {
      assert.ok(client.includes(from), `the client no longer has ${from}`)
      await writeFile(join(dir, `${name}.ts`), client.replace(from, to))
    }
    compiled = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], dir)
    // The page's client, run against the demo it was generated from.
    await writeFile(join(dir, 'run.ts'), client.replace(DOC_URL, origin))
  })
  after(async () => {
    await served?.stop()
    await app?.close()
    await db?.close()
    for (const path of [dir, data]) if (path !== '') await rm(path, { recursive: true, force: true })
  })

  const errorsOf = (file: string) => compiled.output.split('\n').filter((line) => line.startsWith(`${file}(`))

  it('types every field, parameter, header and answer: nothing is unknown or any', () => {
    assert.deepEqual(untyped(types.code), [])
    assert.deepEqual(untyped(types.file), [])
    // GET one takes `fields` alone (the list's paging parameters were documented on it, untyped).
    assert.match(types.code, /getUser: \{\s+parameters: \{\s+query\?: \{\s+\/\*\*[^\n]*\*\/\s+fields\?: string;\s+\};/)
  })

  it('lets a create body leave out a field with a default, which the answer has', () => {
    assert.match(types.code, /createUser: \{[\s\S]*?requestBody: \{[\s\S]*?role\?: "member" \| "admin";/)
    assert.match(types.code, /UserOut: \{[^}]*\n\s+role: string;/)
  })

  it('compiles the client of the page against the types of the demo and of its API file', () => {
    assert.deepEqual(errorsOf('client.ts'), [], compiled.output)
    assert.deepEqual(errorsOf('client-of-file.ts'), [], compiled.output)
  })

  for (const [name, [, , error]] of Object.entries(MISUSES)) {
    it(`refuses a misuse: ${name}`, () => {
      const errors = errorsOf(`${name}.ts`)
      assert.equal(errors.length, 1, `${name}.ts:\n${compiled.output}`)
      assert.ok(errors[0]!.includes(error), errors[0])
    })
  }

  it('runs against the demo: lists, filters, creates, patches with If-Match and groups', async () => {
    const ran = await run(process.execPath, ['--import', import.meta.resolve('tsx'), join(dir, 'run.ts')], dir)
    assert.equal(ran.status, 0, ran.output)
    assert.equal(ran.output.trim(), "0 member 37 [ 'member: 1' ]")
  })
})
