// Writes schema/api-file.schema.json from its source (src/api-file/api-file-schema.ts, whose router
// options come from src/options/router-option-schemas.ts). Run after changing either:
//   npm run schema -w packages/fastify-mongo-crud
// test/cli/api-file-schema.test.ts fails while the shipped file differs from what this writes.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { API_FILE_SCHEMA_URL, apiFileSchemaText } from '../src/api-file/api-file-schema.ts'

writeFileSync(API_FILE_SCHEMA_URL, apiFileSchemaText())
console.log(`wrote ${fileURLToPath(API_FILE_SCHEMA_URL)}`)
