import type { CollationOptions } from 'mongodb'
import type { Document } from '../../document.js'

/**
 * A command's (or a write statement's) `collation` as sent: the engine validates it with the
 * server's codes and messages (collation.ts), where the in-process API's options meet it too.
 */
export function optionalCollation(command: Document): CollationOptions | undefined {
  const value = command['collation']
  return value === undefined || value === null ? undefined : (value as CollationOptions)
}
