import { execFileSync, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmdirSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Storage that runs out, for tests of what a full disk does: a real small filesystem (a tmpfs, which
 * needs root and the right to mount: CI runs as root), or a file size limit set on a running process
 * (`prlimit`, util-linux, no root needed), under which the kernel refuses writes past the limit as a
 * full disk refuses them, and which can be lifted again, as space can be freed.
 */

/** A tmpfs mounted on a new directory. */
export interface SmallDisk {
  dir: string
  unmount(): void
}

/** Mounts a tmpfs of `bytes` on a new directory; throws mount's own error. */
export function mountSmallDisk(bytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'fmc-small-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    rmdirSync(dir)
    throw error
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' })
      rmdirSync(dir)
    },
  }
}

let smallDiskReason: string | undefined | null = null

/** Why a small filesystem cannot be mounted here (for the test's skip), or undefined when it can (tried once). */
export function smallDiskUnavailable(): string | undefined {
  if (smallDiskReason !== null) return smallDiskReason
  if (process.platform !== 'linux') smallDiskReason = 'a small filesystem is a tmpfs mount: Linux only'
  else if (process.getuid?.() !== 0) smallDiskReason = 'mounting a small tmpfs (mount -t tmpfs) needs root; CI runs as root'
  else {
    try {
      mountSmallDisk(64 * 1024).unmount()
      smallDiskReason = undefined
    } catch (error) {
      smallDiskReason = `mount -t tmpfs was refused here (${String((error as { stderr?: unknown }).stderr ?? error).trim()})`
    }
  }
  return smallDiskReason
}

/** Why a process's file size cannot be limited here (for the test's skip), or undefined when it can. */
export function fileSizeLimitUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'prlimit is Linux only'
  if (spawnSync('prlimit', ['--version']).error) return 'prlimit (util-linux) is not installed'
  return undefined
}

/** Sets the soft file size limit of process `pid`: its writes past `bytes` in any file fail, as on a full disk. */
export function limitFileSize(pid: number, bytes: number | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${bytes}:`], { stdio: 'pipe' })
}

/** Writes a file at `path` until the disk holding it is full (ENOSPC). */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'a')
  const chunk = Buffer.alloc(4096)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    closeSync(fd)
  }
}
