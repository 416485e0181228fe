import type { Iterator } from 'mingo/lazy'
import { $count } from 'mingo/operators/pipeline'
import type { Options } from 'mingo/types'

/**
 * `$count`, as MongoDB runs it: the number of documents that reach it, in one document, and no
 * document at all when none does (mingo answers `{ n: 0 }`, which a client paging on "one result or
 * none" reads as a count of zero it was never sent by MongoDB). mingo checks the field name.
 */
export function countStage(collection: Iterator, expr: string, options: Options): Iterator {
  return $count(collection, expr, options).filter((counted: Record<string, unknown>) => counted[expr] !== 0)
}
