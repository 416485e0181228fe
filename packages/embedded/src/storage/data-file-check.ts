import { statSync } from 'node:fs'
import { join } from 'node:path'
import { damagedDataFileError } from '../errors.js'

/** LMDB's data file in an environment directory. */
export const DATA_FILE = 'data.mdb'

/** Two meta pages of at least 4 KiB each begin every LMDB data file. */
const SMALLEST_DATA_FILE = 2 * 4096

const WHAT_TO_DO =
  'It was cut short (a partial copy, or a copy made while the disk filled). Restore the directory from a complete backup (`fastify-mongo-crud-db backup`), or copy data.mdb again from its source, in full.'

/** The data file's size in bytes, or undefined when there is none yet (a new directory). */
function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Before LMDB opens the directory: a data file too short to hold its two meta pages crashes LMDB's
 * open itself (SIGSEGV). An empty one is LMDB's new database, and left to it.
 */
export function checkDataFileHead(directory: string): void {
  const file = join(directory, DATA_FILE)
  const size = sizeOf(file)
  if (size === undefined || size === 0 || size >= SMALLEST_DATA_FILE) return
  throw damagedDataFileError(`The data file ${file} is ${size} bytes, shorter than the ${SMALLEST_DATA_FILE} bytes of header every data file begins with. ${WHAT_TO_DO}`)
}

/**
 * Once LMDB has read the meta pages, before any other page is touched: every page up to the last one
 * the database records must be in the file. LMDB maps the file into memory, and a read of a page past
 * its end is a SIGBUS that ends the process without a word.
 */
export function checkDataFileSize(directory: string, recorded: { lastPageNumber: number, pageSize: number }): void {
  const file = join(directory, DATA_FILE)
  const size = sizeOf(file) ?? 0
  const needed = (recorded.lastPageNumber + 1) * recorded.pageSize
  if (size >= needed) return
  throw damagedDataFileError(
    `The data file ${file} is ${size} bytes, but the database records ${needed} bytes (${recorded.lastPageNumber + 1} pages of ${recorded.pageSize}). ${WHAT_TO_DO}`
  )
}
