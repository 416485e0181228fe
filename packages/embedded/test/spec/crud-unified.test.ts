import { runUnifiedSuite } from './unified-suite.ts'

/**
 * MongoDB's unified-format CRUD specification tests, run through the official driver against the
 * engine's wire server, a standalone (or against MONGODB_URI when set). See README.md beside this file.
 */
await runUnifiedSuite({ folder: 'crud/unified', folderVariable: 'FMC_UNIFIED_SPEC_DIR', knownFailures: 'known-failures.json' })
