#!/usr/bin/env node
import { backupDb } from './backup-db.js'
import { parseCli, USAGE, UsageError } from './parse-args.js'
import { serveDb } from './serve-db.js'

/** The `fastify-mongo-crud-db` command. Exit codes: 0 done, 1 failure, 2 bad usage. */
async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseCli>
  try {
    command = parseCli(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    console.error(`${error.message}\n\n${USAGE}`)
    return 2
  }
  if (command.command === 'help') {
    console.log(USAGE)
    return 0
  }
  if (command.command === 'backup') await backupDb(command)
  else await serveDb(command)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(`fastify-mongo-crud-db: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
)
