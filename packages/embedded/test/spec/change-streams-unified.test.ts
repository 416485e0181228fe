import { runUnifiedSuite } from './unified-suite.ts'

/**
 * MongoDB's unified-format change streams specification tests, run through the official driver
 * against the engine's wire server presenting a replica set (`replSet`), or against MONGODB_URI when
 * set. See README.md beside this file.
 */
await runUnifiedSuite({
  folder: 'change-streams/unified',
  folderVariable: 'FMC_CHANGE_STREAMS_SPEC_DIR',
  knownFailures: 'known-failures-change-streams.json',
  server: { replSet: 'rs0' },
})
