import { readFileSync, statfsSync, statSync } from 'node:fs'
import { constants } from 'node:os'
import { join } from 'node:path'

const { ENOSPC, EDQUOT, EFBIG, EIO } = constants.errno

/** Free space below which a short write is taken for a full disk: a short write leaves next to none. */
const NEARLY_FULL_BYTES = 1024 * 1024

/**
 * Why the storage had no room for a write, in words, when `error` (lmdb-js's, with a numeric errno
 * `code`, or Node's, with `code: 'ENOSPC'`) says so; undefined for any other failure. `file` is
 * the file that could not grow, in `directory`.
 */
export function noRoomReason(error: unknown, directory: string, file: string): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  const errno = typeof code === 'string' ? constants.errno[code as keyof typeof constants.errno] : typeof code === 'number' ? Math.abs(code) : undefined
  if (errno === ENOSPC) return diskFull(directory)
  if (errno === EDQUOT) return `the disk quota of the data directory ${directory} is used up (Disk quota exceeded)`
  if (errno === EFBIG) return fileTooLarge(join(directory, file))
  // LMDB answers EIO to a write that stored only part of its pages ("short write, filesystem
  // full?"): that is no room when the disk is now full, or the file at the size limit; else a real I/O error.
  if (errno === EIO) return shortWriteReason(directory, join(directory, file))
  return undefined
}

function diskFull(directory: string): string {
  return `the disk holding the data directory ${directory} is full (No space left on device)`
}

function fileTooLarge(path: string): string {
  return `${path} reached the largest file this process may write (File too large: a file size limit such as \`ulimit -f\`, or the filesystem's own)`
}

function shortWriteReason(directory: string, path: string): string | undefined {
  try {
    const { bavail, bsize } = statfsSync(directory)
    if (bavail * bsize < NEARLY_FULL_BYTES) return diskFull(directory)
    const limit = fileSizeLimit()
    if (limit !== undefined && statSync(path).size >= limit) return fileTooLarge(path)
  } catch {
    // Nothing more to learn: the I/O error stands as it is.
  }
  return undefined
}

/** The process's file size limit (`ulimit -f`) in bytes, where Linux tells it; undefined when unlimited or unknown. */
function fileSizeLimit(): number | undefined {
  const line = /^Max file size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
  const limit = Number(line?.[1])
  return Number.isFinite(limit) ? limit : undefined
}
