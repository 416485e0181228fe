import { runUnifiedSuite } from './unified-suite.ts'

/**
 * MongoDB's unified-format transactions specification tests, run through the official driver against
 * the engine's wire server presenting a replica set (`replSet`), or against MONGODB_URI when set.
 * See README.md beside this file.
 */
await runUnifiedSuite({
  folder: 'transactions/unified',
  folderVariable: 'FMC_TRANSACTIONS_SPEC_DIR',
  knownFailures: 'known-failures-transactions.json',
  server: { replSet: 'rs0' },
})
