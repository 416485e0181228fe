import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '@fastify-mongo-crud/embedded'
import { MongoClient } from 'mongodb'
import { describeServer, loadUnifiedFile, runUnifiedTest, skipReason } from './unified-runner.ts'

/**
 * MongoDB's unified-format CRUD specification tests, run through the official driver against the
 * engine's wire server (or against MONGODB_URI when set). Tests listed in known-failures.json are
 * reported as todo while they fail, and fail once they pass (so the list only shrinks); against
 * MONGODB_URI the list is not applied. See README.md beside this file.
 */
const here = dirname(fileURLToPath(import.meta.url))
const repositoryRoot = resolve(here, '../../../..')
const specDir = [
  process.env['FMC_UNIFIED_SPEC_DIR'],
  join(here, 'crud/unified'),
  join(repositoryRoot, '../shared/spec/crud/unified'),
].find((dir): dir is string => dir !== undefined && existsSync(dir))
const knownFailuresPath = join(here, 'known-failures.json')
const knownFailures = JSON.parse(readFileSync(knownFailuresPath, 'utf8')) as Record<string, Record<string, string>>
const externalUri = process.env['MONGODB_URI']
/** `UPDATE_KNOWN_FAILURES=1` rewrites known-failures.json with the failures of this run (then review the diff). */
const updateKnownFailures = process.env['UPDATE_KNOWN_FAILURES'] === '1' && !externalUri
const observedFailures: Record<string, Record<string, string>> = {}
const counts = { passed: 0, failed: 0, known: 0, skipped: 0 }

if (specDir === undefined) {
  it('runs the unified CRUD specification tests', { skip: 'the spec files are not here: set FMC_UNIFIED_SPEC_DIR (see README.md)' }, () => undefined)
} else {
  let engine: EmbeddedDb | undefined
  let server: WireServer | undefined
  if (!externalUri) {
    engine = await openEmbedded()
    server = await startWireServer(engine)
  }
  const uri = externalUri ?? server!.uri
  const internal = new MongoClient(uri, { serverSelectionTimeoutMS: 60_000 })
  await internal.connect()
  const facts = await describeServer(internal)
  after(async () => {
    await internal.close()
    await server?.close()
    await engine?.close()
    if (updateKnownFailures) writeFileSync(knownFailuresPath, `${JSON.stringify(observedFailures, null, 2)}\n`)
    console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
      ` (${counts.known} of the failures are known, in known-failures.json; server ${facts.version} ${facts.topology}${externalUri ? ', MONGODB_URI' : ''})`)
  })

  const fileNames = readdirSync(specDir).filter((name) => name.endsWith('.json')).sort()
  const listedFiles = new Set(fileNames)
  for (const fileName of Object.keys(knownFailures)) {
    if (!listedFiles.has(fileName)) throw new Error(`known-failures.json names ${fileName}, which is not a spec file`)
  }
  for (const fileName of fileNames) {
    const file = loadUnifiedFile(join(specDir, fileName))
    const known = externalUri ? {} : knownFailures[fileName] ?? {}
    const descriptions = new Set(file.tests.map((test) => test.description))
    for (const description of Object.keys(known)) {
      if (!descriptions.has(description)) throw new Error(`known-failures.json names "${description}" in ${fileName}, which has no such test`)
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
          if (knownReason !== undefined && !updateKnownFailures) throw new Error(`passes now: remove it from known-failures.json (${fileName})`)
        })
      }
    })
  }
}
