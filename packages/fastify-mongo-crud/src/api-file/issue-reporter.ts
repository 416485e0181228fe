import type { ApiFileIssue } from './api-file-error.js'
import type { Located } from './parse-json-positions.js'

/** Reports a problem of the value at `pointer` (of its key with `onKey`: an unknown or misspelt name). */
export type Report = (pointer: string, message: string, onKey?: boolean) => void

/** A Report that adds each issue to `issues`, at the line and column `positions` give its pointer. */
export function issueReporter(positions: ReadonlyMap<string, Located>, issues: ApiFileIssue[]): Report {
  return (pointer, message, onKey = false) => {
    const located = positions.get(pointer)
    const position = (onKey ? located?.key : undefined) ?? located?.value ?? { line: 1, column: 1 }
    issues.push({ line: position.line, column: position.column, pointer, message })
  }
}
