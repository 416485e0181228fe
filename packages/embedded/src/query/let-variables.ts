import { evalExpr, ProcessingMode } from 'mingo/core'
import { type Document, isNonArrayObject, isPlainObject } from '../document.js'
import { asServerError, failedToParseError, internalConstantError, letReadsFieldError, typeMismatchError } from '../errors.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'

/** Variables by name (without `$$`), as mingo's `variables` option takes them. */
export type Variables = Readonly<Document>

/** mingo's own defaults, which `evalExpr` (unlike `Query` and `Aggregator`) wants spelled out. */
const EVAL_DEFAULTS = { idKey: '_id', processingMode: ProcessingMode.CLONE_OFF, useStrictMode: true, failOnError: true } as const

/** System variables the server keeps for itself: a client's `let` may not set them (4738901). */
const INTERNAL_CONSTANTS = new Set(['NOW', 'CLUSTER_TIME', 'JS_SCOPE', 'IS_MR', 'USER_ROLES'])

/**
 * A command's `let` as the server reads it: a document of variables, each a valid user variable
 * name bound to an expression evaluated once, before any document is examined (so it may read
 * constants, `$$NOW` and the variables before it, never a field). Undefined when there is none.
 * `command` names the command in the type error (`BSON field 'update.let' is the wrong type`).
 */
export function resolveLet(spec: unknown, command: string): Variables | undefined {
  if (spec === undefined || spec === null) return undefined
  if (typeof spec !== 'object' || Array.isArray(spec) || '_bsontype' in spec || spec instanceof Date) {
    throw typeMismatchError(`BSON field '${command}.let' is the wrong type '${bsonTypeName(spec)}', expected type 'object'`)
  }
  const variables: Document = {}
  for (const [name, expression] of Object.entries(spec as Document)) {
    checkLetName(name)
    if (readsDocument(expression)) throw letReadsFieldError()
    try {
      variables[name] = evalExpr({}, expression, { ...EVAL_DEFAULTS, ...MINGO_OPTIONS, variables: { ...variables } })
    } catch (error) {
      throw asServerError(error)
    }
  }
  return variables
}

/** The server's rule for a variable a user defines: a lowercase (or non-ASCII) first letter, then letters, digits, `_`. */
function checkLetName(name: string): void {
  if (INTERNAL_CONSTANTS.has(name)) throw internalConstantError(name)
  // CURRENT passes the server's rule but rebinds the document being examined; mingo cannot.
  if (name === 'CURRENT') throw failedToParseError("Invalid 'let' parameter :: caused by :: the embedded engine does not support rebinding CURRENT")
  const problem = variableNameProblem(name, /[a-z]/)
  if (problem) throw failedToParseError(`Invalid 'let' parameter :: caused by :: ${problem}`)
}

function variableNameProblem(name: string, first: RegExp): string | undefined {
  if (name === '') return 'empty variable names are not allowed'
  const [head] = name
  if (!first.test(head!) && head!.charCodeAt(0) < 0x80) return `'${name}' starts with an invalid character for a user variable name`
  for (const ch of name.slice(1)) {
    if (!/[a-zA-Z0-9_]/.test(ch) && ch.charCodeAt(0) < 0x80) return `'${name}' contains an invalid character for a variable name: '${ch}'`
  }
  return undefined
}

/** Whether an expression reads the document: a field path (`$a`), `$$ROOT` or `$$CURRENT`; `$literal` content is data. */
function readsDocument(expression: unknown): boolean {
  if (typeof expression === 'string') {
    if (!expression.startsWith('$')) return false
    if (!expression.startsWith('$$')) return true
    const variable = expression.slice(2).split('.')[0]
    return variable === 'ROOT' || variable === 'CURRENT'
  }
  if (Array.isArray(expression)) return expression.some(readsDocument)
  if (!isPlainObject(expression)) return false
  return Object.entries(expression).some(([key, value]) => key !== '$literal' && readsDocument(value))
}

function bsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array'
  if (value instanceof Date) return 'date'
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (typeof bsonType === 'string') return bsonType === 'Int32' ? 'int' : bsonType.toLowerCase()
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double'
  if (typeof value === 'boolean') return 'bool'
  return typeof value
}

const BOUND = new WeakMap<Document, Variables>()

/**
 * A copy of `filter` that carries its command's variables: whoever compiles it (compile-filter.ts,
 * from the read path and the write path alike) evaluates `$$name` in its `$expr` with them, without
 * every function between the command and the compiler taking a parameter for them. A copy, so that
 * one filter object reused by two commands with different `let` keeps each its own.
 */
export function bindVariables(filter: Document, variables: Variables | undefined): Document {
  if (variables === undefined || !isNonArrayObject(filter)) return filter
  const bound = { ...filter }
  BOUND.set(bound, variables)
  return bound
}

/** The variables `bindVariables` attached to this filter, if any. */
export function variablesOf(filter: Document): Variables | undefined {
  return BOUND.get(filter)
}
