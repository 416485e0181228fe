import type { Endpoint } from '../dispatch/endpoint.js'
import type { DriverDb } from '../store/driver-db.js'

/**
 * What the batch of one kind (the router's documents, a lookup's children) runs each operation
 * with: the kind's endpoint (the guards, `disable*` and body checks of its routes, dispatch/endpoint.ts),
 * so that an operation in a batch is refused or applied exactly as the same request sent alone, and
 * the database its transaction runs on.
 */
export interface BatchKind extends Endpoint {
  readonly db: DriverDb
  readonly maxOperations: number
}
