import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { DriverDb } from 'fastify-mongo-crud'
import { driverModes } from './wire-store-modes.ts'

/** A database handle opened for one test group, and how to dispose of it. */
export interface OpenedStore {
  db: DriverDb
  close(): Promise<void>
}

/** One way of backing the routers under test. Tests never know which one they run on. */
export interface StoreMode {
  name: string
  open(): Promise<OpenedStore>
}

const embeddedMemory: StoreMode = {
  name: 'embedded-memory',
  async open() {
    const db = await openEmbedded()
    return { db, close: () => db.close() }
  },
}

const embeddedDisk: StoreMode = {
  name: 'embedded-disk',
  async open() {
    const dir = await mkdtemp(join(tmpdir(), 'fmc-http-'))
    const db = await openEmbedded({ path: dir })
    return {
      db,
      async close() {
        try {
          await db.close()
        } finally {
          await rm(dir, { recursive: true, force: true })
        }
      },
    }
  },
}

export const storeModes: StoreMode[] = [embeddedMemory, embeddedDisk, ...driverModes()]

/** Declares one `describe` per store mode, named `${title} [${mode.name}]`. */
export function describeEachStore(title: string, fn: (mode: StoreMode) => void): void {
  for (const mode of storeModes) {
    describe(`${title} [${mode.name}]`, () => fn(mode))
  }
}
