import type { Options } from 'mingo/types'
import { MAX_BSON_SIZE } from '../bson/bson-codec.js'
import { exceededMemoryLimitError, invalidArgumentError } from '../errors.js'
import { reserveHeap } from './heap-headroom.js'

/**
 * The memory one value built by an expression or an accumulator may take: MongoDB's 100 MB limits
 * for `$range` (`internalQueryMaxRangeBytes`), `$push` (`internalQueryMaxPushBytes`), `$addToSet`
 * (`internalQueryMaxAddToSetBytes`), `$map` and `$reduce`. Without it one request could build an
 * array V8 cannot hold, which aborts the process instead of throwing.
 */
export const DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES = 100 * 1024 * 1024

/** Where an operation's limit travels, in the options mingo hands every operator (aggregate-documents.ts sets it). */
const EXPRESSION_MEMORY_LIMIT = 'expressionMemoryLimitBytes'

/** `options` for mingo with the operation's limit (undefined: the default). */
export function withExpressionMemoryLimit<T extends object>(options: T, limitBytes: number | undefined): T {
  return limitBytes === undefined ? options : { ...options, [EXPRESSION_MEMORY_LIMIT]: limitBytes }
}

/**
 * The limit of the operation an operator runs for. mingo hands operators either the caller's
 * options or its own `ComputeOptions`, which keeps the caller's under `options`; an operation that
 * set none (a find's `$expr`, an update pipeline) has the default.
 */
export function memoryLimitOf(options: Options): number {
  const own = (options as { options?: unknown }).options
  const caller = (typeof own === 'object' && own !== null ? own : options) as Record<string, unknown>
  const limit = caller[EXPRESSION_MEMORY_LIMIT]
  return typeof limit === 'number' ? limit : DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES
}

/** A string can never be larger than the largest document (16 MiB), whatever the limit. */
export function stringLimitOf(options: Options): number {
  return Math.min(memoryLimitOf(options), MAX_BSON_SIZE)
}

/**
 * The memory a value under construction takes, checked as it grows: past `limitBytes`, the
 * server's error, before the operator builds what it measured (or, for a value built piece by
 * piece, at the piece that passes it). Each piece is also reserved from the heap (heap-headroom.ts).
 */
export class BuildMemory {
  readonly #operator: string
  readonly #limitBytes: number
  readonly #accumulated: boolean
  #bytes = 0

  /** `accumulated`: an accumulator's value (`$push`, `$addToSet`), whose error MongoDB words differently. */
  constructor(operator: string, limitBytes: number, accumulated = false) {
    this.#operator = operator
    this.#limitBytes = limitBytes
    this.#accumulated = accumulated
  }

  get bytes(): number {
    return this.#bytes
  }

  /** What is left before the limit: a measurement may stop there (value-size.ts). */
  get left(): number {
    return this.#limitBytes - this.#bytes
  }

  add(bytes: number): void {
    this.#bytes += bytes
    if (this.#bytes > this.#limitBytes) {
      const message = this.#accumulated
        ? `${this.#operator} used too much memory and cannot spill to disk. Memory limit: ${this.#limitBytes} bytes`
        : `${this.#operator} would use too much memory (${this.#bytes} bytes) and cannot spill to disk. Memory limit: ${this.#limitBytes} bytes`
      throw exceededMemoryLimitError(message)
    }
    reserveHeap(bytes, this.#operator)
  }
}

/** Checks, before it is built, a value of `bytes` that `operator` would build in one piece. */
export function checkBuild(operator: string, bytes: number, limitBytes: number): void {
  new BuildMemory(operator, limitBytes).add(bytes)
}

/** Validates the `expressionMemoryLimitBytes` option of `openEmbedded`: a positive number of bytes (Infinity: no limit). */
export function toExpressionMemoryLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw invalidArgumentError(`expressionMemoryLimitBytes must be a positive integer (bytes) or Infinity, got ${JSON.stringify(value) ?? String(value)}`)
  }
  return value
}
