import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { directoryInUseError, outOfDiskSpaceError } from '../errors.js'
import { noRoomReason } from './no-room.js'

/** The lock file inside a data directory. */
export const LOCK_FILE = 'fastify-mongo-crud.lock'

interface Holder {
  pid: number
  host: string
  /** The process's start time where the OS tells it (Linux): a reused pid has another one. */
  started?: string | undefined
  /** Tells two locks of one pid apart. */
  token: string
}

/** Lock files this process holds: the only locks naming this process's pid that are alive. */
const HELD = new Set<string>()

/**
 * An exclusive claim on a data directory for the life of one engine. The engine keeps unique
 * indexes in memory, so two processes writing one directory would each accept the same unique
 * key; they must share it through one wire server instead.
 *
 * The lock is a file naming the holder's pid, created atomically (a hard link fails when the
 * name exists). A holder killed with `kill -9` leaves it behind: a lock whose process is no
 * longer alive on this host is stale and taken over, so the directory reopens after a crash.
 * "Alive" means the pid runs with the start time the lock recorded, so a reused pid (a restarted
 * container's app is pid 1 again) does not keep a stale lock, and has not exited: a holder that
 * exited but was not reaped (a zombie, where no init reaps) keeps none either. A live holder, this process
 * included (one directory, one engine), gets a clear error. A lock from another host cannot be
 * checked and is assumed alive; its error names the lock file to remove.
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
    // The real path: one directory reached through a symlink is still one directory.
    const path = join(realpathSync(dir), LOCK_FILE)
    if (HELD.has(path)) throw directoryInUseError(dir, process.pid, path)
    const me: Holder = { pid: process.pid, host: hostname(), started: startTimeOf(process.pid), token: randomBytes(8).toString('hex') }
    const content = JSON.stringify(me)
    const draft = `${path}.${me.pid}.${me.token}`
    writeDraft(dir, draft, content, path, me)
    try {
      // Two rounds: a stale lock removed in the first lets the second create ours.
      for (let round = 0; round < 2; round++) {
        if (tryCreate(draft, path, content)) {
          HELD.add(path)
          return new DirectoryLock(path, content)
        }
        const seen = readLock(path)
        if (seen === undefined) continue
        const holder = parseHolder(seen)
        if (holder === undefined || isAlive(holder)) throw directoryInUseError(dir, holder?.pid, path, holder?.host)
        removeIfUnchanged(path, seen, me)
      }
      const holder = parseHolder(readLock(path) ?? '')
      throw directoryInUseError(dir, holder?.pid, path, holder?.host)
    } finally {
      unlinkSync(draft)
    }
  }

  /** Removes the lock file, if it is still ours. */
  release(): void {
    HELD.delete(this.#path)
    if (readLock(this.#path) === this.#content) unlinkSync(this.#path)
  }
}

/**
 * Writes the lock's content, to be linked into place. On a full disk, where the engine that filled
 * it may have died leaving its lock behind, that stale lock is removed to make room (once); a live
 * holder is named as always; with no room still, the error says so and what to do.
 */
function writeDraft(dir: string, draft: string, content: string, path: string, me: Holder): void {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(draft, content)
      return
    } catch (error) {
      // Created, but empty: no room for its content.
      rmSync(draft, { force: true })
      const reason = noRoomReason(error, dir, LOCK_FILE)
      if (reason === undefined) throw error
      const seen = readLock(path)
      if (attempt === 0 && seen !== undefined) {
        const holder = parseHolder(seen)
        if (holder === undefined || isAlive(holder)) throw directoryInUseError(dir, holder?.pid, path, holder?.host)
        removeIfUnchanged(path, seen, me)
        continue
      }
      throw outOfDiskSpaceError(
        `Cannot open the data directory ${dir}: ${reason}, and the engine needs a few bytes there for its lock file ${path}. Free a few kilobytes on that disk and start again: that is enough to open the directory and serve reads (writes need more).`
      )
    }
  }
}

/**
 * Creates the lock as a hard link to the fully written draft, so no process ever reads a
 * half-written lock. Where the filesystem has no hard links, an exclusive create is next best.
 */
function tryCreate(draft: string, path: string, content: string): boolean {
  try {
    return tryLink(draft, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error
  }
  try {
    writeFileSync(path, content, { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
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
  // Our own pid, in a lock this process does not hold: left by an earlier process with that pid.
  if (holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
  const stat = procStat(holder.pid)
  // A zombie has exited: only its parent has not reaped it yet (a container's pid 1 that reaps nothing).
  if (stat?.state === 'Z' || stat?.state === 'X') return false
  return holder.started === undefined || stat?.started === undefined || stat.started === holder.started
}

/** A process's start time (clock ticks after boot), where Linux tells it. */
function startTimeOf(pid: number): string | undefined {
  return procStat(pid)?.started
}

/** A process's state (field 3 of /proc/<pid>/stat: R, S, Z...) and start time (field 22), where Linux tells them. */
function procStat(pid: number): { state: string | undefined, started: string | undefined } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may contain spaces; field 3 first.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0], started: fields[19] }
  } catch {
    return undefined
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
