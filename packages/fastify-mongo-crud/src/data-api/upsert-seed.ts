import type { Filter } from '../query/filter.js'
import type { WireDoc } from '../store/store.js'
import { setValueAt } from './document-paths.js'

/**
 * The document an upsert starts from, as MongoDB makes it: the filter's equalities (`{ "sku": "a1",
 * "tags.0": "x" }` ANDed at its top), each at its path; operators and `$or` give no value. The update's
 * operators then apply to it (apply-update.ts).
 */
export function upsertSeed(filter: Filter | undefined): WireDoc {
  const doc: WireDoc = {}
  const items = filter === undefined ? [] : filter.kind === 'and' ? filter.items : [filter]
  for (const item of items) {
    if (item.kind !== 'field') continue
    const only = item.conditions.length === 1 ? item.conditions[0] : undefined
    if (only?.op === 'eq') setValueAt(doc, item.path.split('.'), structuredClone(only.value))
  }
  return doc
}
