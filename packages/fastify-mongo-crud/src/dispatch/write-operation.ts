import type { RouteName } from '../options.js'

/** The writes every channel dispatches, each what one route does. */
export const WRITE_OPS = ['create', 'replace', 'update', 'delete'] as const
export type WriteOp = (typeof WRITE_OPS)[number]

/**
 * One write, as any channel carries it: the operation, the id of its document, its body, the PATCH
 * media type of an update (`application/json` when none), and its preconditions (docs/conditional-requests.md).
 */
export interface WriteOperation {
  readonly op: WriteOp
  readonly id?: string | undefined
  readonly body?: unknown
  readonly contentType?: string | undefined
  readonly ifMatch?: string | string[] | undefined
  readonly createOnly?: boolean | undefined
}

/** The route each operation stands for. */
export const ROUTE_OF: Readonly<Record<WriteOp, RouteName>> = { create: 'CreateOne', replace: 'ReplaceOne', update: 'UpdateOne', delete: 'DeleteOne' }
