// `fastify-mongo-crud/api-file`: what `fastify-mongo-crud serve` does, for programs (tests, custom routes beside a file's).
export type { ApiFile } from './api-file.js'
export { ApiFileError, type ApiFileIssue, formatIssues } from './api-file-error.js'
export { type BuildApiAppOptions, buildApiApp } from './build-api-app.js'
export { API_FILE_SCHEMA_URL } from './check-file-schema.js'
export { type LoadedApiFile, loadApiFile, parseApiFile } from './load-api-file.js'
