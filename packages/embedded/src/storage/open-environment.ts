import { open, type RootDatabase } from 'lmdb'
import { checkDataFileHead, checkDataFileSize } from './data-file-check.js'

/** Named LMDB databases one environment may hold: one per collection plus the catalog. */
const MAX_COLLECTIONS = 1000

/**
 * Opens the LMDB environment of a data directory, once its data file is known to be whole: a data
 * file cut short would end the process with SIGBUS at the first read past its end
 * (data-file-check.ts). Read-only for a backup, which shares the directory with its writer.
 *
 * `overlappingSync: false` makes each commit promise resolve only after LMDB's commit has been
 * fsync'ed, so an acknowledged write survives `kill -9` and power loss.
 * @internal Left out of the declarations, as lmdb's types are (change-log-store.ts's LmdbChangeLog).
 */
export function openEnvironment(path: string, options: { readOnly?: boolean } = {}): RootDatabase {
  checkDataFileHead(path)
  // noSubdir: false, or lmdb takes a path with a dot in its last segment (`data.v1`) for a file.
  const root = open({ path, noSubdir: false, maxDbs: MAX_COLLECTIONS, overlappingSync: false, noSync: false, readOnly: options.readOnly === true })
  try {
    // Opening the environment reads only its meta pages: the first page read past them must be in the file.
    checkDataFileSize(path, root.getStats() as { lastPageNumber: number, pageSize: number })
  } catch (error) {
    void root.close().catch(() => undefined)
    throw error
  }
  return root
}
