import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ResponseFormat } from './ejson-response.js'
import type { ServedCollection, ServedCollections } from './served-collections.js'

/** The Data API's actions, each `POST <prefix>/action/<name>`. */
export const ACTION_NAMES = ['findOne', 'find', 'insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'aggregate'] as const
export type ActionName = (typeof ACTION_NAMES)[number]

/** What one request to an action brings: the collection it names, its body (in wire form), its caller, the answer's format. */
export interface ActionInput {
  readonly action: ActionName
  readonly served: ServedCollection
  readonly body: Readonly<Record<string, unknown>>
  readonly caller: ActionCaller
  readonly format: ResponseFormat
  /** Every served collection (an aggregate's `$lookup` joins another under its own policy). */
  readonly collections: ServedCollections
}

/** The request of an action and its reply, which the routers' guards receive. */
export interface ActionCaller {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
}

/** An action's answer: its status and its body, values already in the answer's format. */
export interface ActionResult {
  readonly status: 200 | 201
  readonly body: Record<string, unknown>
}
