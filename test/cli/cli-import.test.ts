import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { ApiFileError } from 'fastify-mongo-crud/api-file'
import { MongoClient } from 'mongodb'
import { CommandFailure } from '../../packages/fastify-mongo-crud/src/cli/command-failure.ts'
import { createAllOrNothing } from '../../packages/fastify-mongo-crud/src/cli/create-all-or-nothing.ts'
import { importDocuments } from '../../packages/fastify-mongo-crud/src/cli/import-documents.ts'
import { usageOf } from '../../packages/fastify-mongo-crud/src/cli/usage.ts'
import { runCli } from '../harness/cli.ts'

const OWNER = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const NOTE_ID = '650000000000000000000001'

/** Tags with a unique label, created by admins only; notes scoped by the x-user header, whose model does not require the scope field. */
const API = {
  models: {
    Tag: { type: 'object', properties: { label: { type: 'string', minLength: 1 }, rank: { type: 'integer' } }, required: ['label'] },
    Note: { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string', format: 'objectid' } }, required: ['title'] },
  },
  routers: {
    tags: {
      prefix: '/tags',
      collection: 'tags',
      model: 'Tag',
      indexes: [{ key: { label: 1 }, unique: true }],
      guards: { createOne: [{ header: 'x-role', equals: 'admin' }] },
    },
    notes: { prefix: '/api/notes', collection: 'notes', model: 'Note', scope: { field: 'owner', header: 'x-user' } },
  },
}

/** The documents of a collection of the engine's data directory `path`, without their ids. */
async function stored(path: string, collection: string): Promise<Array<Record<string, unknown>>> {
  const db = await openEmbedded({ path })
  try {
    return (await db.collection(collection).find({}).toArray()).map(({ _id, ...doc }) => doc)
  } finally {
    await db.close()
  }
}

/** What JSON.parse says of `text` (its words differ between Node versions). */
function parserMessage(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${text} is JSON`)
}

const lines = (...documents: Array<string | object>) => `${documents.map((doc) => (typeof doc === 'string' ? doc : JSON.stringify(doc))).join('\n')}\n`

/**
 * `import <router> <file>`: documents go through the router's create, all in one transaction. The
 * command runs where its exit code and streams are the promise; the other cases call it in-process.
 */
describe('fastify-mongo-crud import', { timeout: 120_000 }, () => {
  let dir: string
  let data: string
  /** Runs the import in-process: its stdout lines, its stderr lines, and the failure it ended with. */
  const run = async (router: string, documents: string, options: { file?: string, data?: string, env?: NodeJS.ProcessEnv } = {}) => {
    const out: string[] = []
    const err: string[] = []
    let failure: Error | undefined
    const command = { command: 'import' as const, router, documents: join(dir, documents), file: join(dir, options.file ?? 'api.json'), data: options.data }
    await importDocuments(command, options.env ?? {}, (line) => out.push(line), (line) => err.push(line)).catch((error: Error) => {
      failure = error
    })
    return { out, err, failure }
  }
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-import-'))
    data = join(dir, 'data')
    await writeFile(join(dir, 'api.json'), JSON.stringify(API, null, 2))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  it('a .ndjson file (blank lines skipped): every document created (guards are for clients), a summary on stdout, exit code 0', async () => {
    await writeFile(join(dir, 'tags.ndjson'), lines({ label: 'a', rank: 1 }, '', { label: 'b' }))
    const { code, stdout, stderr } = await runCli(['import', 'tags', 'tags.ndjson', '--data', 'data'], {}, dir)
    assert.equal(code, 0, stderr)
    assert.equal(stdout, `fastify-mongo-crud: imported 2 documents into tags (embedded engine, data in ${data})\n`)
    assert.deepEqual(await stored(data, 'tags'), [{ label: 'a', rank: 1 }, { label: 'b' }])
  })

  it('refused documents: each printed with its line and why, exit code 1, and none is written', async () => {
    await writeFile(
      join(dir, 'more.ndjson'),
      lines({ label: 'c' }, { label: 'a' }, { label: 'c' }, { labl: 'd' }, 'not json', { label: 'e', rank: 'first' }, { label: 'f' })
    )
    const { code, stdout, stderr } = await runCli(['import', 'tags', 'more.ndjson', '--data', 'data'], {}, dir)
    assert.equal(code, 1)
    assert.equal(stdout, '')
    const duplicate = 'Document not created: one of its unique fields (id, label) has the value of a stored document or of an earlier line'
    assert.deepEqual(stderr.split('\n'), [
      `more.ndjson:2: ${duplicate}`,
      `more.ndjson:3: ${duplicate}`,
      'more.ndjson:4: label: Field required; labl: Extra inputs are not permitted',
      `more.ndjson:5: invalid JSON: ${parserMessage('not json')}`,
      'more.ndjson:6: rank: Input should be a valid integer',
      'fastify-mongo-crud: 5 of 7 documents refused: nothing was imported. Fix them and run import again',
      '',
    ])
    assert.deepEqual(await stored(data, 'tags'), [{ label: 'a', rank: 1 }, { label: 'b' }], 'neither c nor f was written')
  })

  it('an unknown router: exit code 2, the closest router, then the usage of import', async () => {
    const { code, stderr } = await runCli(['import', 'tgas', 'tags.ndjson', '--data', 'data'], {}, dir)
    assert.equal(code, 2)
    assert.equal(stderr, `fastify-mongo-crud: import: no router 'tgas' in the API file (routers: tags (/tags), notes (/api/notes)): did you mean 'tags'?\n\n${usageOf('import')}\n`)
  })

  it('a .json array, into a router named by its prefix: each document at the line it starts on', async () => {
    await writeFile(join(dir, 'tags.json'), '[\n  { "label": "g" },\n  {\n    "label": ""\n  }\n]\n')
    const { err, failure } = await run('/tags', 'tags.json', { data })
    assert.deepEqual(err, [`${join(dir, 'tags.json')}:3: label: Input must NOT have fewer than 1 characters`])
    assert.ok(failure instanceof CommandFailure)
    assert.equal(failure.message, '1 of 2 documents refused: nothing was imported. Fix them and run import again')
    await writeFile(join(dir, 'tags.json'), '[{ "label": "g" }]')
    assert.deepEqual((await run('tags', 'tags.json', { data })).out, [`fastify-mongo-crud: imported 1 document into tags (embedded engine, data in ${data})`])
  })

  it('a scoped router: each document carries its scope field (no caller fills it) and may carry its id', async () => {
    const notes = [{ id: NOTE_ID, title: 'mine', owner: OWNER }, { title: 'whose?' }]
    await writeFile(join(dir, 'notes.json'), JSON.stringify(notes, null, 2))
    const refused = await run('api/notes', 'notes.json', { data })
    assert.deepEqual(refused.err, [`${join(dir, 'notes.json')}:7: owner: Field required (the router's scope fills it from the caller on a POST; an import has none)`])
    await writeFile(join(dir, 'notes.json'), JSON.stringify(notes.slice(0, 1)))
    assert.deepEqual((await run('notes', 'notes.json', { data })).out, [`fastify-mongo-crud: imported 1 document into notes (embedded engine, data in ${data})`])
    const db = await openEmbedded({ path: data })
    try {
      const [note] = await db.collection('notes').find({}).toArray()
      assert.equal(String(note!['_id']), NOTE_ID)
      assert.equal(String(note!['owner']), OWNER)
    } finally {
      await db.close()
    }
  })

  it('the database serve would serve: the file\'s, MONGODB_URI (all or nothing there too); none at all is refused', async () => {
    await writeFile(join(dir, 'stored.json'), JSON.stringify({ ...API, database: { engine: 'embedded', path: 'from-file' } }))
    await writeFile(join(dir, 'one.ndjson'), lines({ label: 'h' }))
    assert.deepEqual((await run('tags', 'one.ndjson', { file: 'stored.json' })).out, [`fastify-mongo-crud: imported 1 document into tags (embedded engine, data in ${join(dir, 'from-file')})`])

    const engine = await openEmbedded()
    const server = await startWireServer(engine)
    try {
      const env = { MONGODB_URI: server.uri.replace(/\/?(\?|$)/, '/shop$1') }
      await writeFile(join(dir, 'two.ndjson'), lines({ label: 'i' }, { label: 'i' }))
      const refused = await run('tags', 'two.ndjson', { env })
      assert.deepEqual(refused.err.map((line) => line.split(': ')[0]), [`${join(dir, 'two.ndjson')}:2`])
      assert.deepEqual((await run('tags', 'one.ndjson', { env })).out, ['fastify-mongo-crud: imported 1 document into tags (MongoDB, database shop)'])
      const client = new MongoClient(server.uri)
      try {
        assert.deepEqual((await client.db('shop').collection('tags').find({}).toArray()).map((doc) => doc['label']), ['h'])
      } finally {
        await client.close()
      }
    } finally {
      await server.close()
      await engine.close()
    }

    const { failure } = await run('tags', 'one.ndjson')
    assert.ok(failure instanceof CommandFailure)
    assert.equal(failure.message, 'import: no database keeps the documents (the file names none, and neither --data, MONGODB_URI nor FMC_DATA_DIR is set): into memory they would be lost at exit')
  })

  it('a .json file that is not JSON or not an array, a missing file, an API file check refuses: refused whole, saying where or what to do', async () => {
    await writeFile(join(dir, 'broken.json'), '[\n  { "label": "x" },\n]')
    assert.equal((await run('tags', 'broken.json', { data })).failure?.message, `${join(dir, 'broken.json')}:3:1: invalid JSON: Unexpected character "]": expected a value`)
    await writeFile(join(dir, 'object.json'), '{ "label": "x" }')
    assert.equal(
      (await run('tags', 'object.json', { data })).failure?.message,
      `${join(dir, 'object.json')} holds no array: a .json file of documents is an array of them ([{...}, {...}]); for one document per line, name the file .ndjson`
    )
    assert.match((await run('tags', 'missing.ndjson', { data })).failure?.message ?? '', /^cannot read .*missing\.ndjson: no such file$/)
    await writeFile(join(dir, 'misspelt.json'), JSON.stringify({ ...API, routers: { tags: { ...API.routers.tags, sortable: ['lable'] } } }))
    const misspelt = (await run('tags', 'one.ndjson', { file: 'misspelt.json', data })).failure
    assert.ok(misspelt instanceof ApiFileError, 'the API file is checked as check checks it')
    assert.match(misspelt.issues[0]!.message, /^'sortable\[0\]' names 'lable'/)
  })

  it('a database without transactions: refused before anything is written, saying where to import', async () => {
    const engine = await openEmbedded()
    try {
      const noClient = { collection: (name: string) => engine.collection(name) }
      await assert.rejects(createAllOrNothing(noClient, [{ line: 1, document: {} }], async () => {}, () => undefined), (error: Error) => {
        assert.ok(error instanceof CommandFailure)
        assert.equal(error.message, 'import writes every document in one transaction, and the database handle has no client to start a session with: import into a replica set (a single-node one will do) or the embedded engine')
        return true
      })
    } finally {
      await engine.close()
    }
  })
})
