import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { DATA_FILE } from './data-file-check.js'
import { openEnvironment } from './open-environment.js'

/** What a backup wrote. */
export interface Backup {
  /** The backup's data file. */
  file: string
  bytes: number
}

/**
 * Copies the data directory `source` to `destination` (created; it must not hold anything yet), as
 * one consistent snapshot, while an engine may be serving it: LMDB's own copy (`mdb_env_copy2`,
 * lmdb-js's `backup`) reads every page within one read transaction, which a writer in another process
 * neither waits for nor disturbs. The directory lock (directory-lock.ts) is not taken: it keeps out a
 * second writer, and this only reads. The copy is a complete data directory; it is checked once
 * written, as every open checks a data file (open-environment.ts). `compact` leaves out free pages:
 * slower, and smaller.
 */
export async function backupDirectory(source: string, destination: string, compact: boolean): Promise<Backup> {
  const from = resolve(source)
  const to = resolve(destination)
  if (!existsSync(join(from, DATA_FILE))) throw new Error(`${from} is not a data directory: it holds no ${DATA_FILE}`)
  if (existsSync(to) && readdirSync(to).length > 0) throw new Error(`The backup's destination ${to} is not empty: name a new directory, so no earlier backup is overwritten`)
  mkdirSync(to, { recursive: true })
  const root = openEnvironment(from, { readOnly: true })
  try {
    await root.backup(to, compact)
  } finally {
    await root.close()
  }
  await openEnvironment(to, { readOnly: true }).close()
  const file = join(to, DATA_FILE)
  return { file, bytes: statSync(file).size }
}
