import type { Bodies } from '../dispatch/body-checks.js'
import { WRITE_OPS, type WriteOp } from '../dispatch/dispatch.js'
import { JSON_PATCH_SCHEMA, MERGE_PATCH_SCHEMA, PATCH_MEDIA_TYPES } from '../patch/patch-media-types.js'


/** One operation of a batch, as the request carries it (checked by `batchStructure`). */
export interface BatchOperation {
  readonly op: WriteOp
  readonly id?: string
  readonly body?: unknown
  readonly ifMatch?: string
  readonly contentType?: string
}

export interface BatchBody {
  readonly atomic?: boolean
  readonly operations: readonly BatchOperation[]
}


/** `detail` of an error: a message, or the validation issues (`{ loc, msg, type }`) of a 422. */
const detail = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }
const id = { type: 'string', description: 'The id of the document, as in its URL' }
const ifMatch = { type: 'string', description: 'An ETag: the operation applies only to that version (If-Match)' }

/**
 * The request body OpenAPI shows: each operation typed by its route's body (the model, its patch, or
 * a patch document in the media type `contentType` names).
 */
export function batchRequestSchema(bodies: Bodies, maxOperations: number) {
  const operation = (op: WriteOp, properties: Record<string, object>, required: string[]) => ({
    type: 'object',
    title: `${op} operation`,
    properties: { op: { type: 'string', enum: [op] }, ...properties },
    required: ['op', ...required],
    additionalProperties: false,
  })
  const updates = [
    operation('update', { id, body: bodies.patch, ifMatch, contentType: { type: 'string', enum: ['application/json'], description: 'The fields sent are set (default)' } }, ['id', 'body']),
    operation('update', { id, body: MERGE_PATCH_SCHEMA, ifMatch, contentType: { type: 'string', enum: [PATCH_MEDIA_TYPES.merge] } }, ['id', 'body', 'contentType']),
    operation('update', { id, body: JSON_PATCH_SCHEMA, ifMatch, contentType: { type: 'string', enum: [PATCH_MEDIA_TYPES.jsonPatch] } }, ['id', 'body', 'contentType']),
  ]
  const operations = [
    operation('create', { body: bodies.create }, ['body']),
    ...(bodies.replace === undefined ? [] : [operation('replace', { id, body: bodies.replace, ifMatch }, ['id', 'body'])]),
    ...updates,
    operation('delete', { id, ifMatch }, ['id']),
  ]
  return {
    type: 'object',
    properties: {
      atomic: { type: 'boolean', default: true, description: 'Every operation applies, or none does (default); false: each applies or fails on its own' },
      operations: { type: 'array', minItems: 1, maxItems: maxOperations, items: { anyOf: operations } },
    },
    required: ['operations'],
    additionalProperties: false,
  }
}

/**
 * What the route itself checks of a batch: its shape, not the operations' bodies. Each operation's
 * body is checked as its own route checks it (validation, then the guards' and the store's refusals),
 * so that one invalid operation is that operation's 422, with its index, and not the whole request's.
 */
export function batchStructure(maxOperations: number) {
  return {
    type: 'object',
    properties: {
      atomic: { type: 'boolean', default: true },
      operations: {
        type: 'array',
        minItems: 1,
        maxItems: maxOperations,
        items: {
          type: 'object',
          properties: { op: { type: 'string', enum: [...WRITE_OPS] }, id: { type: 'string' }, body: {}, ifMatch: { type: 'string' }, contentType: { type: 'string' } },
          required: ['op'],
          additionalProperties: false,
        },
      },
    },
    required: ['operations'],
    additionalProperties: false,
  }
}

/** The answer: one result per operation, in order. */
export const batchResponseSchema = {
  type: 'object',
  description: 'One result per operation, in order',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          status: { type: 'integer', description: 'What the operation answers alone: 201, 200, 204, or its error status' },
          body: { type: 'object', additionalProperties: true, description: 'The document written, as GET one answers it' },
          etag: { type: 'string', description: 'The ETag of the document written' },
          detail,
        },
        required: ['status'],
      },
    },
  },
  required: ['results'],
}

/** An atomic batch refused as a whole: the failing operation's status, its `detail` and its index. */
export const batchFailureSchema = {
  type: 'object',
  properties: {
    detail,
    index: { type: 'integer', description: 'The index of the operation that failed' },
  },
  required: ['detail'],
}
