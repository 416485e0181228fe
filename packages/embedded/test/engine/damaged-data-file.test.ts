// A data file cut short (a partial copy) is refused when the directory opens, with a message that
// names the file and says what to do: before, the first read past its end killed the process with
// SIGBUS (exit 135), without a word.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, statSync, truncateSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { MongoServerError } from 'mongodb'
import { openEmbedded } from '../../src/open-embedded.ts'
import { makeTempDir } from './engines.ts'

const DOCS = 300

describe('a data file cut short', { timeout: 120_000 }, () => {
  let dir: string
  let file: string
  let whole: string
  before(async () => {
    dir = await makeTempDir('damaged')
    const db = await openEmbedded({ path: dir })
    await Promise.all(Array.from({ length: DOCS }, (_, i) => db.collection('docs').insertOne({ _id: i, text: `document ${i} `.repeat(40) })))
    await db.close()
    file = join(dir, 'data.mdb')
    whole = join(dir, 'whole.mdb.copy')
    copyFileSync(file, whole)
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** data.mdb as a copy that stopped after `bytes`. */
  function cutTo(bytes: number): void {
    copyFileSync(whole, file)
    truncateSync(file, bytes)
  }

  function assertRefused(error: unknown, size: number): true {
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 301)
    assert.equal(error.codeName, 'DataCorruptionDetected')
    assert.ok(error.message.includes(`The data file ${file} is ${size} bytes`), error.message)
    assert.match(error.message, /It was cut short \(a partial copy.*\)\. Restore the directory from a complete backup \(`fastify-mongo-crud-db backup`\), or copy data\.mdb again from its source, in full\./)
    return true
  }

  it('is refused against the size the database records, naming the file and what to do', async () => {
    const half = Math.floor(statSync(whole).size / 2)
    cutTo(half)
    await assert.rejects(openEmbedded({ path: dir }), (error: unknown) => {
      assertRefused(error, half)
      assert.match((error as Error).message, /but the database records \d+ bytes \(\d+ pages of \d+\)/)
      return true
    })
  })

  it('is refused when too short for its header (LMDB itself would crash reading it)', async () => {
    cutTo(100)
    await assert.rejects(openEmbedded({ path: dir }), (error: unknown) => assertRefused(error, 100))
  })

  it('leaves the directory free: once the file is whole again, it opens with every document', async () => {
    cutTo(4096 * 3)
    await assert.rejects(openEmbedded({ path: dir }), { code: 301 })
    copyFileSync(whole, file)
    const db = await openEmbedded({ path: dir })
    try {
      assert.equal(await db.collection('docs').countDocuments({}), DOCS)
    } finally {
      await db.close()
    }
  })

  it('makes fastify-mongo-crud-db exit 1 with the message, not die of SIGBUS', async () => {
    cutTo(Math.floor(statSync(whole).size / 2))
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const [code, signal] = await once(child, 'exit')
    assert.deepEqual({ code, signal }, { code: 1, signal: null }, stderr)
    assert.match(stderr, new RegExp(`^fastify-mongo-crud-db: The data file ${file.replaceAll('.', '\\.')} is \\d+ bytes, but the database records`))
    copyFileSync(whole, file)
  })
})
