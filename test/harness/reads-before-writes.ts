import type { DriverDb } from 'fastify-mongo-crud'
import { interceptCollections } from './intercept-collections.ts'

const WRITES = new Set(['findOneAndUpdate', 'findOneAndReplace', 'updateOne', 'replaceOne', 'deleteOne'])

/**
 * The worst interleaving for a conditional write, made deterministic: once armed, every write on the
 * collections waits until `reads` reads have completed, so two requests both read the document (and
 * both see the tag they were sent) before either writes. A check made by reading before writing lets
 * both through; a check inside the write lets exactly one through. No timing is involved.
 */
export class ReadsBeforeWrites {
  private armedFor = 0
  private reads = 0
  private release: () => void = () => {}
  private released: Promise<void> = Promise.resolve()

  arm(reads: number): void {
    this.armedFor = reads
    this.reads = 0
    this.released = new Promise((resolve) => {
      this.release = resolve
    })
  }

  disarm(): void {
    this.armedFor = 0
    this.release()
  }

  wrap(db: DriverDb): DriverDb {
    return interceptCollections(db, async (call, method) => {
      if (this.armedFor > 0 && WRITES.has(method)) await this.released
      const result = await call()
      if (this.armedFor > 0 && method === 'findOne' && ++this.reads >= this.armedFor) this.release()
      return result
    })
  }
}
