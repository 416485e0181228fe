import { inForm, type ValueForm } from '../bson/value-form.js'
import { startDeadline } from '../collection/collection-core.js'
import type { Document } from '../document.js'
import type { Deadline } from '../pace/deadline.js'
import { nextTurn, PAUSE, type Paced, type Pause } from '../pace/pause.js'
import { EmbeddedCursor } from '../read/cursor.js'
import { aggregatePaced, type CollectionResolver, outputStageOf, type PipelineSettings } from './aggregate-documents.js'
import { writeMerge } from './merge-stage.js'
import { writeOut } from './out-stage.js'
import type { OutputResolver } from './output-target.js'

export interface AggregateSource {
  /** The documents the pipeline starts from (a collection's, or none for `aggregate: 1`), and pauses (pause.ts). */
  read: (deadline: Deadline, settings: AggregateSettings) => Iterable<Document | Pause>
  resolve: CollectionResolver
  output: OutputResolver
  /** A database-level aggregation (`aggregate: 1`): its first stage makes the documents. */
  collectionless: boolean
  /** Rewrites the pipeline when it runs (so that its errors come on the first read, as the server's). */
  expand?: (pipeline: Document[]) => Document[]
  /** Resolves the operation's `let` and `collation` when the pipeline runs (their errors come on the first read). */
  settings?: () => AggregateSettings
}

/** An aggregation's `let`, collation and memory limits (aggregate-documents.ts). */
type AggregateSettings = PipelineSettings

/**
 * The cursor of an aggregation. A pipeline ending in `$out` or `$merge` runs entirely on the
 * cursor's first read, writes its results through the target's write queue, and yields nothing
 * (like the server's empty first batch); any other pipeline is pulled as the cursor is read.
 * Either way the pipeline runs in slices (aggregatePaced), letting the event loop run between two.
 * The pipeline computes on numbers as the engine holds them; its results leave in `form` (value-form.ts).
 */
export function aggregateCursor(source: AggregateSource, pipeline: Document[], maxTimeMS: number | undefined, form: ValueForm): EmbeddedCursor {
  const run = (deadline: Deadline): Iterable<Document | Pause> => {
    const expanded = source.expand ? source.expand(pipeline) : pipeline
    const stages = output ? expanded.slice(0, -1) : expanded
    const settings = source.settings?.() ?? {}
    const documents = source.read(deadline, settings)
    return stages.length === 0 ? documents : aggregatePaced(documents, stages, source.resolve, deadline, settings, source.collectionless)
  }
  const output = outputStageOf(pipeline)
  if (!output) {
    return new EmbeddedCursor(function* (deadline: Deadline): Paced<Document> {
      if (form === 'held') yield* run(deadline)
      else for (const doc of run(deadline)) yield doc === PAUSE ? doc : inForm(doc, form)
      return undefined
    }, maxTimeMS)
  }
  const nothing: Document[] = []
  return new EmbeddedCursor(
    () => nothing.values() as Iterator<Document, undefined>,
    undefined,
    async () => {
      const deadline = startDeadline(maxTimeMS)
      const results: Document[] = []
      for (const doc of run(deadline)) {
        if (doc !== PAUSE) results.push(doc)
        else {
          deadline.pause()
          deadline.startSlice(await nextTurn())
          deadline.resume()
        }
      }
      if (Object.hasOwn(output, '$out')) await writeOut(output['$out'], results, source.output)
      else await writeMerge(output['$merge'], results, source.output)
    },
  )
}
