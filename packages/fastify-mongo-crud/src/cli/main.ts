#!/usr/bin/env node
import { ApiFileError } from '../api-file/api-file-error.js'
import { CommandFailure } from './command-failure.js'
import { initProject } from './init-project.js'
import { packageVersion } from './package-version.js'
import { type CliCommand, parseCommandLine } from './parse-command-line.js'
import { isCommand, UsageError, usageOf } from './usage.js'

/**
 * The `fastify-mongo-crud` command. Exit codes: 0 done, 1 failure (a bad file: every error, at its
 * line; documents refused), 2 bad usage (the problem, then the usage of the command called, on stderr).
 */
async function main(argv: string[]): Promise<number> {
  let command: CliCommand
  try {
    command = parseCommandLine(argv, process.env)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return usageFailure(error, argv[0])
  }
  try {
    await run(command)
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error, argv[0])
    if (error instanceof ApiFileError) {
      console.error(error.message)
      return 1
    }
    if (error instanceof CommandFailure || error instanceof (await import('./open-database.js')).DatabaseError) {
      console.error(`fastify-mongo-crud: ${error.message}`)
      return 1
    }
    throw error
  }
  return 0
}

async function run(command: CliCommand): Promise<void> {
  switch (command.command) {
    case 'help':
      console.log(usageOf(command.topic))
      return
    case 'version':
      console.log(packageVersion())
      return
    case 'init':
      return initProject(process.cwd())
    // Imported when run: help, version and init answer without loading Fastify and the driver.
    case 'import':
      return (await import('./import-documents.js')).importDocuments(command, process.env)
    case 'import-rules':
      return (await import('./import-rules.js')).importRules(command)
    default:
      return (await import('./serve-api.js')).serveApi(command, process.env)
  }
}

function usageFailure(error: UsageError, called: string | undefined): number {
  console.error(`fastify-mongo-crud: ${error.message}\n\n${usageOf(called !== undefined && isCommand(called) ? called : undefined)}`)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  // Anything else (a port in use, a directory that cannot be created): its message, never a stack trace.
  (error: unknown) => {
    console.error(`fastify-mongo-crud: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
)
