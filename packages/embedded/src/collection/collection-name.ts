import { invalidNamespaceError } from '../errors.js'

/**
 * Checks a collection name as MongoDB does (InvalidNamespace, 73): not empty, no NUL byte, no `$`.
 * Storage names are built from it, so these are also what keeps two names from reaching one
 * collection: LMDB names its databases with C strings (`c:<name>`, lmdb-storage.ts), where a NUL
 * byte ends the name (`a\0b` would read and write collection `a`), and another database's
 * collections are stored as `<db>$<collection>` (embedded-db.ts).
 */
export function checkCollectionName(db: string, name: unknown): string {
  if (typeof name !== 'string' || name === '' || name.includes('\0') || name.includes('$')) {
    throw invalidNamespaceError(`Invalid namespace specified: ${JSON.stringify(`${db}.${String(name)}`)}`)
  }
  return name
}

/**
 * `system.*` collections are the engine's own (`system.views` holds the views): clients may read
 * them, and may not write them, as MongoDB refuses writes there (InvalidNamespace, 73). A write
 * would change the views behind the engine's back.
 */
export function checkWritableCollection(name: string, ns: string): void {
  if (isSystemCollection(name)) throw invalidNamespaceError(`cannot write to '${ns}'`)
}

export function isSystemCollection(name: string): boolean {
  return name.startsWith('system.')
}
