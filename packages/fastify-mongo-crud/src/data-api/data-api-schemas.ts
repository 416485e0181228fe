import type { ActionName } from './action-input.js'
import { AGGREGATE_STAGES } from './aggregate-documents.js'
import { DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT } from './page-bounds.js'
import { UPDATE_OPERATORS } from './parse-update.js'

type Schema = Record<string, unknown>

/**
 * The OpenAPI side of the endpoint (docs/data-api.md): each action's body, its answers and its errors,
 * in both formats. The route validates nothing with them (the body is Extended JSON, read and checked
 * by the actions, which answer in the Data API's own error format): they document.
 */

const object = (description: string): Schema => ({ type: 'object', description })

const KEYS: Readonly<Record<string, Schema>> = {
  filter: object('A MongoDB query filter, in the router\'s filter grammar ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $all, $exists, $size, $regex, $not, $elemMatch, $and, $or, $nor) over the fields clients may filter on.'),
  projection: { type: 'object', description: 'Fields to include (1) or exclude (0); `_id` may be excluded either way.', additionalProperties: { enum: [0, 1, true, false] } },
  sort: { type: 'object', description: 'Fields clients may sort on, each 1 (ascending) or -1, in order.', additionalProperties: { enum: [1, -1] } },
  limit: { type: 'integer', minimum: 0, maximum: MAX_FIND_LIMIT, description: `The most documents answered (default ${DEFAULT_FIND_LIMIT}; 0 means the default).` },
  skip: { type: 'integer', minimum: 0, description: 'Documents skipped first.' },
  document: object("A document to insert, checked by the collection's model; `_id` may be given."),
  documents: { type: 'array', minItems: 1, items: { type: 'object' }, description: 'Documents to insert, all or none.' },
  update: object(`Update operators: ${UPDATE_OPERATORS.join(', ')}.`),
  replacement: object("The whole new document, checked by the collection's model."),
  upsert: { type: 'boolean', default: false, description: 'When nothing matches, insert the document the filter and the update (or the replacement) make.' },
  pipeline: { type: 'array', items: { type: 'object' }, description: `Stages: ${AGGREGATE_STAGES.join(', ')}.` },
}

/** Each action's keys besides the namespace, and which of them it requires. */
const BODIES: Readonly<Record<ActionName, { keys: readonly string[], required: readonly string[], summary: string }>> = {
  findOne: { keys: ['filter', 'projection', 'sort'], required: [], summary: 'Find one document' },
  find: { keys: ['filter', 'projection', 'sort', 'limit', 'skip'], required: [], summary: 'Find documents' },
  insertOne: { keys: ['document'], required: ['document'], summary: 'Insert one document' },
  insertMany: { keys: ['documents'], required: ['documents'], summary: 'Insert documents, all or none' },
  updateOne: { keys: ['filter', 'update', 'upsert'], required: ['filter', 'update'], summary: 'Update one document' },
  updateMany: { keys: ['filter', 'update', 'upsert'], required: ['filter', 'update'], summary: 'Update documents, all or none' },
  replaceOne: { keys: ['filter', 'replacement', 'upsert'], required: ['filter', 'replacement'], summary: 'Replace one document' },
  deleteOne: { keys: ['filter'], required: ['filter'], summary: 'Delete one document' },
  deleteMany: { keys: ['filter'], required: ['filter'], summary: 'Delete documents' },
  aggregate: { keys: ['pipeline'], required: ['pipeline'], summary: 'Run an aggregation pipeline' },
}

const count = (description: string): Schema => ({ type: 'integer', minimum: 0, description })
const id = { description: 'An `_id`: its hex text in JSON, `{ "$oid": ... }` in Extended JSON (or the value the document gave).' }
const documents = { type: 'array', items: { type: 'object' } }

const ANSWERS: Readonly<Record<ActionName, readonly [200 | 201, Schema]>> = {
  findOne: [200, { type: 'object', required: ['document'], properties: { document: { type: ['object', 'null'], description: 'The first match, or null.' } } }],
  find: [200, { type: 'object', required: ['documents'], properties: { documents } }],
  aggregate: [200, { type: 'object', required: ['documents'], properties: { documents } }],
  insertOne: [201, { type: 'object', required: ['insertedId'], properties: { insertedId: id } }],
  insertMany: [201, { type: 'object', required: ['insertedIds'], properties: { insertedIds: { type: 'array', items: id } } }],
  updateOne: [200, updated()],
  updateMany: [200, updated()],
  replaceOne: [200, updated()],
  deleteOne: [200, { type: 'object', required: ['deletedCount'], properties: { deletedCount: count('Documents deleted.') } }],
  deleteMany: [200, { type: 'object', required: ['deletedCount'], properties: { deletedCount: count('Documents deleted.') } }],
}

function updated(): Schema {
  return {
    type: 'object',
    required: ['matchedCount', 'modifiedCount'],
    properties: { matchedCount: count('Documents the filter matched.'), modifiedCount: count('Documents changed.'), upsertedId: { ...id, description: `The upserted document's ${id.description}` } },
  }
}

const ERROR: Schema = {
  type: 'object',
  required: ['error', 'error_code'],
  properties: {
    error: { type: 'string', description: 'What went wrong.' },
    error_code: { type: 'string', description: "App Services' code: InvalidParameter, MissingParameter, InvalidSession, NoMatchingRuleFound, SchemaValidationFailedWrite, MongoDBError..." },
  },
}

const WRITES: ReadonlySet<ActionName> = new Set(['insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne'])

function errors(action: ActionName): Record<number, Schema> {
  const failure = (description: string) => ({ description, content: { 'application/json': { schema: ERROR } } })
  return {
    400: failure('A body, namespace, filter, operator or stage the endpoint does not take, or no credentials'),
    401: failure('Credentials that name no caller (an unknown key, a token that does not verify)'),
    403: failure("No role lets the caller do this (the router's access policy, a guard, a route left out)"),
    413: failure('A body larger than the endpoint takes'),
    ...(WRITES.has(action)
      ? { 409: failure('A duplicate key, or a document that kept changing under the write'), 422: failure("A document the collection's model refuses: nothing stored") }
      : {}),
    503: failure('The database cannot be reached, or the query exceeded its time limit'),
  }
}

/** The OpenAPI schema of one action's route: its body in both formats, its answer in both, its errors, its credential headers. */
export function actionSchema(action: ActionName, collections: readonly string[], defaults: { dataSource: string, database: string | undefined }): Schema {
  const { keys, required, summary } = BODIES[action]
  const body = {
    type: 'object',
    required: ['database', 'collection', ...required],
    properties: {
      dataSource: { type: 'string', default: defaults.dataSource, description: 'The data source; the endpoint serves one.' },
      database: { type: 'string', ...(defaults.database === undefined ? {} : { example: defaults.database }) },
      collection: { type: 'string', ...(collections.length === 0 ? {} : { enum: [...collections] }) },
      ...Object.fromEntries(keys.map((key) => [key, KEYS[key]])),
    },
  }
  const [status, answer] = ANSWERS[action]
  return {
    tags: ['Data API'],
    operationId: `dataApi${action[0]!.toUpperCase()}${action.slice(1)}`,
    summary,
    description: 'Extended JSON in (relaxed or canonical); JSON out, or canonical Extended JSON with `Accept: application/ejson`. Credentials: `apiKey`, `Authorization: Bearer <token>` or `jwtTokenString`.',
    headers: {
      type: 'object',
      properties: {
        apiKey: { type: 'string', description: 'A key of the endpoint.' },
        jwtTokenString: { type: 'string', description: 'A token, as `Authorization: Bearer <token>` sends one.' },
      },
    },
    body: { content: { 'application/json': { schema: body }, 'application/ejson': { schema: body } } },
    response: {
      [status]: { description: summary, content: { 'application/json': { schema: answer }, 'application/ejson': { schema: answer } } },
      ...errors(action),
    },
  }
}
