import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { directoryInUseError } from '../errors.js'

/** The lock file inside a data directory. */
export const LOCK_FILE = 'fastify-mongo-crud.lock'

interface Holder {
  pid: number
  host: string
  /** Tells two locks of one pid apart (a pid is reused after its process ends). */
  token: string
}

/**
 * An exclusive claim on a data directory for the life of one engine. The engine keeps unique
 * indexes in memory, so two processes writing one directory would each accept the same unique
 * key; they must share it through one wire server instead.
 *
 * The lock is a file naming the holder's pid, created atomically (a hard link fails when the
 * name exists). A holder killed with `kill -9` leaves it behind: a lock whose pid is no longer
 * alive on this host is stale and taken over, so the directory reopens after a crash. A live
 * holder (this process included: one directory, one engine) gets a clear error.
 */
export class DirectoryLock {
  readonly #path: string
  readonly #content: string

  private constructor(path: string, content: string) {
    this.#path = path
    this.#content = content
  }

  static acquire(directory: string): DirectoryLock {
    const dir = resolve(directory)
    mkdirSync(dir, { recursive: true })
    const path = join(dir, LOCK_FILE)
    const me: Holder = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') }
    const content = JSON.stringify(me)
    const draft = `${path}.${me.pid}.${me.token}`
    writeFileSync(draft, content)
    try {
      // Two rounds: a stale lock removed in the first lets the second create ours.
      for (let round = 0; round < 2; round++) {
        if (tryLink(draft, path)) return new DirectoryLock(path, content)
        const seen = readLock(path)
        if (seen === undefined) continue
        const holder = parseHolder(seen)
        if (holder === undefined || isAlive(holder)) throw directoryInUseError(dir, holder?.pid, path)
        removeIfUnchanged(path, seen, me)
      }
      const holder = parseHolder(readLock(path) ?? '')
      throw directoryInUseError(dir, holder?.pid, path)
    } finally {
      unlinkSync(draft)
    }
  }

  /** Removes the lock file, if it is still ours. */
  release(): void {
    if (readLock(this.#path) === this.#content) unlinkSync(this.#path)
  }
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function parseHolder(content: string): Holder | undefined {
  try {
    const holder = JSON.parse(content) as Holder
    return Number.isInteger(holder.pid) && typeof holder.host === 'string' ? holder : undefined
  } catch {
    return undefined
  }
}

/** Whether the holder may still be running; a holder on another host is assumed to be. */
function isAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true
  if (holder.pid === process.pid) return true
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/**
 * Moves the stale lock aside (rename is atomic, so of two processes taking it over at once only
 * one moves it) and deletes it. If what was moved is not the stale lock seen but a fresh one
 * another process has just created, it is put back.
 */
function removeIfUnchanged(path: string, seen: string, me: Holder): void {
  const aside = `${path}.stale.${me.pid}.${me.token}`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (readFileSync(aside, 'utf8') !== seen) tryLink(aside, path)
  unlinkSync(aside)
}
