import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { API_FILE_SCHEMA_URL } from 'fastify-mongo-crud/api-file'
import { apiFileSchema, apiFileSchemaText } from '../../packages/fastify-mongo-crud/src/api-file/api-file-schema.ts'
import { RouterOptionSchemas } from '../../packages/fastify-mongo-crud/src/options/router-option-schemas.ts'

describe('the API file JSON Schema is generated from the router options declarations', () => {
  it('the shipped schema/api-file.schema.json is what the generator writes (run `npm run schema -w packages/fastify-mongo-crud`)', async () => {
    const shipped = await readFile(API_FILE_SCHEMA_URL, 'utf8')
    assert.equal(shipped, apiFileSchemaText(), 'schema/api-file.schema.json differs from its source: run npm run schema -w packages/fastify-mongo-crud')
  })

  it("a router's option keys carry their declaration, without the registration's wording", () => {
    const definitions = apiFileSchema()['definitions'] as Record<string, { properties: Record<string, Record<string, unknown>> }>
    const router = definitions['router']!.properties
    assert.deepEqual(router['notFoundStatus']!['enum'], RouterOptionSchemas.notFoundStatus.enum)
    assert.equal(router['collection']!['pattern'], (RouterOptionSchemas.collectionName as { pattern?: string }).pattern)
    assert.equal(definitions['routerLimits']!.properties['maxSkip']!['minimum'], 0)
    assert.ok(!JSON.stringify(apiFileSchema()).includes('"expects"'))
  })
})
