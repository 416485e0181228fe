import type { ChangeEntry } from './change-entry.js'

/** What a change stream watches: one collection (by storage name), one database, or every database. */
export type ChangeScope = { kind: 'collection', storageName: string } | { kind: 'database', db: string } | { kind: 'cluster' }

/** Databases a whole-cluster stream leaves out, as MongoDB's (the server's own). */
const INTERNAL_DATABASES = new Set(['admin', 'config', 'local'])

/**
 * Whether a stream of `scope` reports a log entry, and whether the entry ends the stream: a
 * collection's stream ends once the collection is dropped or renamed, a database's once the
 * database is dropped (each then tells an `invalidate` event). A database's stream leaves out its
 * `system.*` collections; a cluster's leaves out the databases admin, config and local.
 */
export function reachOf(entry: ChangeEntry, scope: ChangeScope, namespaceOf: (storageName: string) => { db: string, coll: string }): 'none' | 'event' | 'last' {
  if (scope.kind === 'collection') {
    if (entry.o === 'dropDatabase' || entry.c !== scope.storageName) return 'none'
    return entry.o === 'drop' || entry.o === 'rename' ? 'last' : 'event'
  }
  if (entry.o === 'dropDatabase') {
    if (scope.kind === 'cluster') return INTERNAL_DATABASES.has(entry.c) ? 'none' : 'event'
    return entry.c === scope.db ? 'last' : 'none'
  }
  const { db, coll } = namespaceOf(entry.c)
  if (scope.kind === 'cluster') return INTERNAL_DATABASES.has(db) ? 'none' : 'event'
  return db === scope.db && !coll.startsWith('system.') ? 'event' : 'none'
}

/** The namespace of a storage name: `<db>$<collection>`, or a collection of the default database. */
export function namespaceOfStorage(storageName: string, defaultDb: string): { db: string, coll: string } {
  const cut = storageName.indexOf('$')
  return cut < 0 ? { db: defaultDb, coll: storageName } : { db: storageName.slice(0, cut), coll: storageName.slice(cut + 1) }
}
