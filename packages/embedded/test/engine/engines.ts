import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'

/** Both storage backends: every engine behaviour is tested on each of them. */
export const ENGINES = ['memory', 'lmdb'] as const
export type EngineKind = (typeof ENGINES)[number]

export async function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `fmc-engine-${prefix}-`))
}

/**
 * Opens a fresh engine of `kind` before the enclosing describe's tests and removes it after.
 * Returns a getter, since the db only exists once `before` has run.
 */
export function useEngine(kind: EngineKind): () => EmbeddedDb {
  let db: EmbeddedDb | undefined
  let dir: string | undefined
  before(async () => {
    if (kind === 'lmdb') dir = await makeTempDir('db')
    db = await openEmbedded(dir === undefined ? {} : { path: dir })
  })
  after(async () => {
    await db?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })
  return () => {
    if (!db) throw new Error('engine not open yet')
    return db
  }
}

/** Narrows a possibly-null result, failing the test when it is missing. */
export function must<T>(value: T | null | undefined): T {
  assert.ok(value !== null && value !== undefined, 'expected a document')
  return value
}
