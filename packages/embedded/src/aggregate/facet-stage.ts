import { cloneDeep } from 'mingo/util'
import { type Document, isPlainObject } from '../document.js'
import { FacetDocument } from '../operators/bounded-stages.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Paced, type Pause } from '../pace/pause.js'
import { gather } from './gather-input.js'

/** A facet's pipeline run as a pipeline of its own over an input (aggregate-documents.ts's `aggregatePaced`). */
export type RunPipeline = (pipeline: Document[], input: Iterable<Document | Pause>) => Paced<Document>

/** A `$facet` the engine runs itself: an object of pipelines. Anything else is left to mingo, and to its errors. */
export function isFacetSpec(spec: unknown): spec is Record<string, Document[]> {
  return isPlainObject(spec) && Object.values(spec).every((pipeline) => Array.isArray(pipeline))
}

/**
 * A top-level `$facet`, in slices. mingo's computed every facet over the whole input in one stretch
 * on its first pull. Here the input is gathered, then each facet's pipeline runs as a pipeline of its
 * own (`run`: the engine's sorts, `$group` in slices, mingo's other stages streamed in slices) over
 * its own deep copies of the input, as mingo's `$facet` gives each facet (`cloneDeep`, its
 * CLONE_INPUT); its documents are gathered in slices and the document of facets is measured as
 * mingo's bounded `$facet` measures it (FacetDocument, within the operation's expression memory limit, `limitBytes`).
 */
export function* facetInSlices(docs: Iterable<Document | Pause>, spec: Record<string, Document[]>, run: RunPipeline, limitBytes: number, deadline: Deadline): Paced<Document> {
  const input = yield* gather(docs, deadline)
  const facets = new FacetDocument(limitBytes)
  for (const name of Object.keys(spec)) {
    const found: Document[] = []
    for (const doc of run(spec[name]!, copies(input, deadline))) {
      if (doc === PAUSE) yield PAUSE
      else found.push(doc)
    }
    facets.add(name, found)
  }
  yield facets.document
  return undefined
}

/** Deep copies of the input's documents, made as they are read. */
function* copies(input: readonly Document[], deadline: Deadline): Paced<Document> {
  for (const doc of input) {
    yield cloneDeep(doc) as Document
    deadline.tick()
    if (deadline.due()) yield PAUSE
  }
  return undefined
}
