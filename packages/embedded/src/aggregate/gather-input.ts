import type { Document } from '../document.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Pause } from '../pace/pause.js'

/** Every document of a paced input, gathered in slices (its pauses passed on): for a stage that needs its whole input. */
export function* gather(docs: Iterable<Document | Pause>, deadline: Deadline): Generator<Pause, Document[]> {
  if (Array.isArray(docs)) return docs as Document[]
  const all: Document[] = []
  for (const doc of docs) {
    if (doc === PAUSE) yield PAUSE
    else all.push(doc)
  }
  deadline.tick(all.length)
  return all
}
