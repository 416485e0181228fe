#!/usr/bin/env node
import { ApiFileError } from '../api-file/api-file-error.js'
import { DatabaseError } from './open-database.js'
import { parseServeArgs, USAGE, UsageError } from './parse-serve-args.js'
import { serveApi } from './serve-api.js'

/** The `fastify-mongo-crud` command. Exit codes: 0 done, 1 failure (a bad file: every error, at its line), 2 bad usage. */
async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseServeArgs>
  try {
    command = parseServeArgs(argv, process.env)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    console.error(`fastify-mongo-crud: ${error.message}\n\n${USAGE}`)
    return 2
  }
  if (command.command === 'help') {
    console.log(USAGE)
    return 0
  }
  try {
    await serveApi(command, process.env)
  } catch (error) {
    if (error instanceof ApiFileError) {
      console.error(error.message)
      return 1
    }
    if (error instanceof DatabaseError) {
      console.error(`fastify-mongo-crud: ${error.message}`)
      return 1
    }
    throw error
  }
  return 0
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
