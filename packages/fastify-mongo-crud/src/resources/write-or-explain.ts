import { StoreError, tooLarge } from '../errors.js'

/**
 * Runs a write, answering the store's refusals with the operation's own errors: a duplicate key is
 * `refused` (the route's "not created/replaced/updated", or 412 under `If-None-Match: *`), an
 * oversized document the 16 MB refusal. Anything else propagates.
 */
export async function writeOrExplain<T>(write: () => Promise<T>, refused: () => Error): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_DUPLICATE') throw refused()
    if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_TOO_LARGE') throw tooLarge()
    throw error
  }
}
