// `fastify-mongo-crud/api-file`: what `fastify-mongo-crud serve` does, for programs (tests, custom routes beside a file's).
export type { ApiFile } from './api-file.js'
export { ApiFileError, type ApiFileIssue, formatIssues } from './api-file-error.js'
export { API_FILE_SCHEMA_URL } from './api-file-schema.js'
export { type BuildApiAppOptions, buildApiApp } from './build-api-app.js'
export { type LoadedApiFile, loadApiFile, parseApiFile } from './load-api-file.js'
export { verifyApiFile } from './verify-api-file.js'
