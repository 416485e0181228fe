import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer, type WireServerOptions } from '@fastify-mongo-crud/embedded'
import { MongoClient } from 'mongodb'
import { describeServer, loadUnifiedFile, runUnifiedTest, skipReason } from './unified-runner.ts'

export interface UnifiedSuite {
  /** The spec's folder of test files, as `source/<folder>` names it in mongodb/specifications (`crud/unified`). */
  folder: string
  /** The environment variable that may point at the folder instead. */
  folderVariable: string
  /** The known failures' file, beside this one. */
  knownFailures: string
  /** How the engine's wire server is started for the suite (a replica set for transactions and change streams). */
  server?: WireServerOptions
}

const here = dirname(fileURLToPath(import.meta.url))
const repositoryRoot = resolve(here, '../../../..')

/**
 * Runs one of MongoDB's unified-format specification suites through the official driver against
 * the engine's wire server (or against MONGODB_URI when set). Tests listed in the suite's known
 * failures are reported as todo while they fail, and fail once they pass (so the list only
 * shrinks); a failure not listed fails. Against MONGODB_URI the list is not applied. See README.md.
 */
export async function runUnifiedSuite(suite: UnifiedSuite): Promise<void> {
  const specDir = [process.env[suite.folderVariable], join(here, suite.folder), join(repositoryRoot, '../shared/spec', suite.folder)].find(
    (dir): dir is string => dir !== undefined && existsSync(dir)
  )
  if (specDir === undefined) {
    it(`runs the unified ${suite.folder} specification tests`, { skip: `the spec files are not here: set ${suite.folderVariable} (see README.md)` }, () => undefined)
    return
  }
  const knownFailuresPath = join(here, suite.knownFailures)
  const knownFailures = JSON.parse(readFileSync(knownFailuresPath, 'utf8')) as Record<string, Record<string, string>>
  const externalUri = process.env['MONGODB_URI']
  /** `UPDATE_KNOWN_FAILURES=1` rewrites the list with the failures of this run (then review the diff). */
  const updateKnownFailures = process.env['UPDATE_KNOWN_FAILURES'] === '1' && !externalUri
  const observedFailures: Record<string, Record<string, string>> = {}
  const counts = { passed: 0, failed: 0, known: 0, skipped: 0 }
  let engine: EmbeddedDb | undefined
  let server: WireServer | undefined
  if (!externalUri) {
    engine = await openEmbedded()
    server = await startWireServer(engine, suite.server)
  }
  const uri = externalUri ?? (suite.server?.replSet === undefined ? server!.uri : `${server!.uri}?replicaSet=${suite.server.replSet}`)
  const internal = new MongoClient(uri, { serverSelectionTimeoutMS: 60_000 })
  await internal.connect()
  const facts = await describeServer(internal)
  after(async () => {
    await internal.close()
    await server?.close()
    await engine?.close()
    if (updateKnownFailures) writeFileSync(knownFailuresPath, `${JSON.stringify(sortedFailures(observedFailures), null, 2)}\n`)
    console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
      ` (${counts.known} of the failures are known, in ${suite.knownFailures}; server ${facts.version} ${facts.topology}${externalUri ? ', MONGODB_URI' : ''})`)
  })

  const fileNames = readdirSync(specDir).filter((name) => name.endsWith('.json')).sort()
  const listedFiles = new Set(fileNames)
  for (const fileName of Object.keys(knownFailures)) {
    if (!listedFiles.has(fileName)) throw new Error(`${suite.knownFailures} names ${fileName}, which is not a spec file`)
  }
  for (const fileName of fileNames) {
    const file = loadUnifiedFile(join(specDir, fileName))
    const known = externalUri ? {} : knownFailures[fileName] ?? {}
    const descriptions = new Set(file.tests.map((test) => test.description))
    for (const description of Object.keys(known)) {
      if (!descriptions.has(description)) throw new Error(`${suite.knownFailures} names "${description}" in ${fileName}, which has no such test`)
    }
    describe(fileName, () => {
      for (const test of file.tests) {
        const skip = skipReason(file, test, facts)
        if (skip) {
          counts.skipped++
          it(test.description, { skip }, () => undefined)
          continue
        }
        it(test.description, { timeout: 10_000 }, async (t) => {
          const knownReason = known[test.description]
          try {
            await runUnifiedTest(file, test, uri, internal)
          } catch (error) {
            counts.failed++
            const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 400)
            if (updateKnownFailures) observedFailures[fileName] = { ...observedFailures[fileName], [test.description]: reason }
            if (knownReason === undefined && !updateKnownFailures) throw error
            counts.known++
            t.todo(knownReason ?? reason)
            return
          }
          counts.passed++
          if (knownReason !== undefined && !updateKnownFailures) throw new Error(`passes now: remove it from ${suite.knownFailures} (${fileName})`)
        })
      }
    })
  }
}

/** The failures by file name, so a rewritten list diffs cleanly. */
function sortedFailures(failures: Record<string, Record<string, string>>): Record<string, Record<string, string>> {
  return Object.fromEntries(Object.keys(failures).sort().map((name) => [name, failures[name]!]))
}
