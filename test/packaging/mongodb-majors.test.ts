// The router (and the engine) declare `mongodb: ^6.0.0 || ^7.0.0` as a peer dependency: in an app, their
// `import ... from 'mongodb'` is the app's own driver. Each supported major runs one CRUD scenario
// (mongodb-major/crud-scenario.ts) in a child process: mongodb 7 as installed, mongodb 6 through a resolve
// hook that makes every `mongodb` import the root devDependency `mongodb6` (an alias of mongodb@6).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const here = join(dirname(fileURLToPath(import.meta.url)), 'mongodb-major')

async function runScenario(major: string, hook: string[], appDriver = 'mongodb'): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, FMC_EXPECT_MONGODB_MAJOR: major, FMC_APP_DRIVER: appDriver }
  // The child is a test file of its own, not a subtest of this run.
  delete env['NODE_TEST_CONTEXT']
  const args = ['--conditions=fmc-source', '--test-reporter=tap', '--import', 'tsx', ...hook, join(here, 'crud-scenario.ts')]
  try {
    const { stdout } = await run(process.execPath, args, { env, timeout: 120_000 })
    return stdout
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    assert.fail(`the scenario failed on mongodb ${major}:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
}

describe('create, get one, list, patch, delete and populate on each supported mongodb major', () => {
  it('mongodb 7', { timeout: 120_000 }, async () => {
    assert.match(await runScenario('7', []), /# pass 3\n# fail 0/)
  })

  it('mongodb 6', { timeout: 120_000 }, async () => {
    const hook = ['--import', join(here, 'register-mongodb6.mjs')]
    assert.match(await runScenario('6', hook), /# pass 3\n# fail 0/)
  })

  it('a Db of mongodb 6 handed to a router that imports mongodb 7 (two bson copies in one process)', { timeout: 120_000 }, async () => {
    assert.match(await runScenario('6', [], 'mongodb6'), /# pass 3\n# fail 0/)
  })
})
