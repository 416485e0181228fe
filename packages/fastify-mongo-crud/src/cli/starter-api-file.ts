/**
 * The api.json `init` writes. JSON has no comments: what a reader of the file needs to know is said
 * in the `description` fields the format has (the API's, the model's, each field's), which the docs
 * at /docs show too. It must pass `check` as it is (a test serves it).
 */
const STARTER = {
  // Resolves once the package is installed in the folder: editors then check and complete the file.
  $schema: './node_modules/fastify-mongo-crud/schema/api-file.schema.json',
  title: 'My API',
  version: '0.1.0',
  description:
    'Written by `fastify-mongo-crud init`. Each model is a JSON Schema object; each router serves the documents of one collection under its prefix, checked against its model. Every key of this file: https://github.com/fastify-mongo-crud/fastify-mongo-crud/blob/main/docs/api-file.md',
  database: { engine: 'embedded', path: './data' },
  models: {
    Todo: {
      type: 'object',
      description: "A todo. A field of 'properties' not listed in 'required' is optional; a field the model does not declare is refused (422). Every document gets an 'id'.",
      properties: {
        title: { type: 'string', minLength: 1, description: 'Required: a create without it is refused (422).' },
        done: { type: 'boolean', default: false, description: 'Optional: false when a create leaves it out.' },
        due: { type: 'string', format: 'date', description: 'Optional: a date, as 2030-01-31.' },
      },
      required: ['title'],
    },
  },
  routers: {
    todos: { prefix: '/todos', collection: 'todos', model: 'Todo' },
  },
}

/** The starter's text: two-space indented, as people write JSON by hand. */
export const starterApiFile = (): string => `${JSON.stringify(STARTER, null, 2)}\n`

/** The data directory the starter names, relative to the file: what `init` ignores in .gitignore. */
export const STARTER_DATA_DIR = 'data'
