import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { parseCommandLine } from '../../packages/fastify-mongo-crud/src/cli/parse-command-line.ts'
import { UsageError, usageOf } from '../../packages/fastify-mongo-crud/src/cli/usage.ts'
import { runCli } from '../harness/cli.ts'

const { version } = JSON.parse(await readFile(new URL('../../packages/fastify-mongo-crud/package.json', import.meta.url), 'utf8')) as { version: string }

/** The UsageError message a command line gets. */
function refusal(argv: string[]): string {
  try {
    parseCommandLine(argv, {})
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error))
    return error.message
  }
  assert.fail(`${argv.join(' ')} was accepted`)
}

/**
 * The command line as users of command-line tools expect it: the version and the help on stdout
 * (exit 0), a bad call on stderr with the usage (exit 2). Each run of the command compiles the
 * sources: the command runs once per stream and exit code to prove, the parsing is checked in-process.
 */
describe('fastify-mongo-crud: usage, help and version', { timeout: 120_000 }, () => {
  it('no argument: the usage on stderr, exit code 2, nothing on stdout', async () => {
    const { code, stdout, stderr } = await runCli([])
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.equal(stderr, `fastify-mongo-crud: give a command\n\n${usageOf()}\n`)
  })

  it('--version and -v: the version of the package, from its package.json, exit code 0', async () => {
    for (const flag of ['--version', '-v']) {
      const { code, stdout, stderr } = await runCli([flag])
      assert.deepEqual({ code, stdout, stderr }, { code: 0, stdout: `${version}\n`, stderr: '' }, flag)
    }
  })

  it('--help and -h: the usage on stdout, listing every command, exit code 0', async () => {
    const { code, stdout, stderr } = await runCli(['--help'])
    assert.deepEqual({ code, stdout, stderr }, { code: 0, stdout: `${usageOf()}\n`, stderr: '' })
    for (const command of ['init', 'serve <api.json>', 'check <api.json>', 'import <router> <file>', 'import-rules <rules.json>', '-h, --help', '-v, --version']) assert.ok(stdout.includes(`  ${command} `), command)
    assert.deepEqual(parseCommandLine(['-h'], {}), { command: 'help' })
  })

  it('<command> --help, <command> -h, help <command> and --help <command>: the usage of that command, on stdout', async () => {
    const { code, stdout } = await runCli(['import', '--help'])
    assert.equal(code, 0)
    assert.equal(stdout, `${usageOf('import')}\n`)
    assert.match(stdout, /^Usage: fastify-mongo-crud import <router> <documents\.json\|documents\.ndjson> \[--file api\.json\] \[--data \.\/data\]\n/)
    for (const command of ['init', 'serve', 'check', 'import', 'import-rules'] as const) {
      assert.deepEqual(parseCommandLine([command, '--help'], {}), { command: 'help', topic: command })
      assert.deepEqual(parseCommandLine([command, 'x', '-h'], {}), { command: 'help', topic: command })
      assert.deepEqual(parseCommandLine(['help', command], {}), { command: 'help', topic: command })
      assert.match(usageOf(command), new RegExp(`^Usage: fastify-mongo-crud ${command}\\b`))
    }
    assert.deepEqual(parseCommandLine(['help'], {}), { command: 'help' })
    assert.deepEqual(parseCommandLine(['--help', 'serve'], {}), { command: 'help', topic: 'serve' })
  })

  it('an unknown command: exit code 2, the closest command, then the usage', async () => {
    const { code, stdout, stderr } = await runCli(['srve', 'api.json'])
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.equal(stderr, `fastify-mongo-crud: unknown command 'srve' (commands: init, serve, check, import, import-rules): did you mean 'serve'?\n\n${usageOf()}\n`)
    assert.equal(refusal(['start']), "unknown command 'start' (commands: init, serve, check, import, import-rules)")
    assert.equal(refusal(['help', 'imprt']), "unknown command 'imprt' (commands: init, serve, check, import, import-rules): did you mean 'import'?")
  })

  it("an unknown option: exit code 2, the closest option, then the command's usage", async () => {
    const { code, stderr } = await runCli(['serve', 'api.json', '--prot', '8080'])
    assert.equal(code, 2)
    assert.equal(stderr, `fastify-mongo-crud: unknown option '--prot': did you mean '--port'?\n\n${usageOf('serve')}\n`)
    assert.equal(refusal(['import', 'todos', 'todos.json', '--fiel', 'api.json']), "unknown option '--fiel': did you mean '--file'?")
    assert.equal(refusal(['--verison']), "unknown option '--verison': did you mean '--version'?")
    assert.equal(refusal(['--version', 'serve']), '--version takes no argument, got serve')
  })

  it('a missing or extra argument of a command: a UsageError saying what the command takes', () => {
    assert.equal(refusal(['init', 'here']), 'init takes no argument, got here: it writes into the current folder')
    assert.equal(refusal(['import', 'todos']), 'import: give the router and the file of documents, e.g. import todos todos.ndjson')
    assert.equal(refusal(['import', 'todos', 'a.json', 'b.json']), 'Unexpected argument: b.json')
    assert.equal(refusal(['import', 'todos', 'todos.csv']), 'import: "todos.csv" is neither .json (an array of documents) nor .ndjson (a document per line)')
    assert.equal(refusal(['serve']), 'serve: give the API file, e.g. serve api.json')
  })

  it('import takes the router, the documents, --file (default api.json) and --data', () => {
    assert.deepEqual(parseCommandLine(['import', 'todos', 'todos.ndjson'], {}), { command: 'import', router: 'todos', documents: 'todos.ndjson', file: 'api.json', data: undefined })
    assert.deepEqual(parseCommandLine(['import', '/todos', 'in.JSON', '--file', 'other.json', '--data', 'd'], {}), {
      command: 'import',
      router: '/todos',
      documents: 'in.JSON',
      file: 'other.json',
      data: 'd',
    })
    assert.deepEqual(parseCommandLine(['init'], {}), { command: 'init' })
  })
})
