import type { RouteOptions } from 'fastify'
import { eventStreamsOf } from '../core/event-streams.js'
import type { RouterContext } from '../core/router-context.js'
import type { Resource } from '../resources/resource.js'
import { EVENTS_SEGMENT } from '../route-names.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { eventsHandler } from './serve-events.js'

/**
 * GET <prefix>/_events: the router's changes, live, as server-sent events (docs/events.md). It shows
 * what the list shows, so the list's guards are its own: `dependenciesGetAll`, and `disableGetAll`
 * leaves it out.
 */
export function buildEventsRoute(context: RouterContext, resource: Resource): RouteOptions {
  const streams = eventStreamsOf(context)
  const route = context.routeOptions('GetAll', {
    200: {
      description:
        'A text/event-stream: each change as `event: create|update|replace|delete`, `id: <resume token>` (send it back as Last-Event-ID to resume) and `data: {"id", "document"}` (the document as the output model shows it; a delete carries only `id`). Comment lines keep a quiet stream open.',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    400: { ...errorRef, description: 'Last-Event-ID is not the id of an event of this stream' },
    410: { ...errorRef, description: 'The changes after Last-Event-ID are no longer kept (the change log retains a bounded history)' },
    422: { ...validationErrorRef, description: 'Invalid filters' },
    501: { ...errorRef, description: 'The database has no change streams (a standalone MongoDB: change streams need a replica set)' },
    503: { ...errorRef, description: `Too many event streams are open (at most ${streams.gate.max}, maxStreams); Retry-After says when to retry` },
  })
  const querystring = {
    type: 'object',
    properties: { filters: { type: 'string', description: "Narrows the feed, in the list's filter grammar: a change is told when the document after it matches (one leaving arrives as delete, one entering as create)" } },
  }
  const headers = { type: 'object', properties: { 'last-event-id': { type: 'string', description: 'Resume right after this event (what EventSource sends on reconnecting)' } } }
  return {
    method: 'GET',
    url: `/${EVENTS_SEGMENT}`,
    ...route,
    schema: { ...route.schema, querystring, headers },
    handler: eventsHandler(context, resource, streams),
  }
}
