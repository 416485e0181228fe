import type { Position } from './parse-json-positions.js'

/** One problem of an API file, at the line and column of the offending text. */
export interface ApiFileIssue extends Position {
  /** JSON Pointer of the offending value (`/routers/notes/scope/field`); `''` for the whole file. */
  pointer: string
  message: string
}

/** An API file that cannot be served: every issue found, each at its place. */
export class ApiFileError extends Error {
  readonly file: string
  /** In file order. */
  readonly issues: readonly ApiFileIssue[]
  constructor(file: string, issues: readonly ApiFileIssue[]) {
    super(`${file}: ${issues.length} error${issues.length === 1 ? '' : 's'}\n${formatIssues(file, issues)}`)
    this.name = 'ApiFileError'
    this.file = file
    this.issues = Object.freeze(inFileOrder(issues))
  }
}

/** `file:line:column: message (at /pointer)`, one line each, in file order (as compilers print them). */
export function formatIssues(file: string, issues: readonly ApiFileIssue[]): string {
  return inFileOrder(issues)
    .map((issue) => `${file}:${issue.line}:${issue.column}: ${issue.message}${issue.pointer === '' ? '' : ` (at ${issue.pointer})`}`)
    .join('\n')
}

const inFileOrder = (issues: readonly ApiFileIssue[]) => [...issues].sort((a, b) => a.line - b.line || a.column - b.column)
