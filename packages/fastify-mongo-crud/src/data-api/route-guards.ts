import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RouteName } from '../route-names.js'
import { noRole } from './data-api-error.js'
import type { DataSource } from './data-sources.js'

const DOES = { GetAll: 'reads', GetOne: 'reads', CreateOne: 'inserts', ReplaceOne: 'replaces', UpdateOne: 'updates', DeleteOne: 'deletes' } as const

/**
 * The guards (`dependencies*`) of the route an action stands for, run as that route runs them: the
 * reads run the list's (`GetAll`), `deleteMany` the delete route's. A route the router leaves out
 * (`disable*`) is an action no caller may take here: 403. Writes of one document run theirs in the
 * dispatch (dispatch/dispatch.ts), with the operation as the request's `crudOperation`.
 */
export async function runRouteGuards(source: DataSource, route: RouteName, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (source.endpoint.disabled.has(route)) {
    throw noRole(`the collection '${source.context.options.collectionName}' takes no ${DOES[route]}: its router leaves that route out`)
  }
  for (const guard of source.endpoint.guards(route)) await guard(request, reply)
}
