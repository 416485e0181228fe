import { loadApiFile } from '../api-file/load-api-file.js'
import { accessChecks } from '../api-file/to-openapi-options.js'
import { verifyApiFileAt } from '../api-file/verify-api-file.js'
import { firstEvent } from '../first-event.js'
import { chooseLogFormat } from '../log-format.js'
import { CommandFailure } from './command-failure.js'
import type { ServeCommand } from './parse-serve-args.js'
import { startApi } from './start-api.js'

/**
 * `fastify-mongo-crud serve <file>`: checks the file, serves it and prints where (`listening on
 * http://host:port`, the line scripts wait for); on SIGINT / SIGTERM closes the server, then the
 * database, and returns. `check` runs every check `serve` runs (the routers' registration included,
 * on no database) and stops there.
 */
export async function serveApi(command: ServeCommand, env: NodeJS.ProcessEnv, log: (line: string) => void = console.log): Promise<void> {
  if (command.command === 'check') {
    const checked = await verifyApiFileAt(command.file)
    log(`${command.file}: OK, ${Object.keys(checked.api.routers).length} router(s), ${Object.keys(checked.api.models).length} model(s)`)
    return
  }
  try {
    // createApp reads it too (a terminal gets human lines, anything else JSON): a bad one is said before the database opens.
    chooseLogFormat(undefined, env)
  } catch (error) {
    throw new CommandFailure((error as Error).message)
  }
  const loaded = await loadApiFile(command.file)
  const served = await startApi(loaded, command, env)
  // The handlers go in before the line scripts wait for: a signal sent as soon as it is read
  // must get a clean stop, not the default action of a signal nobody listens to yet.
  const stopped = firstEvent(process, ['SIGINT', 'SIGTERM'])
  const trusted = [...new Set([...accessChecks(loaded.api)].map((check) => check.header.toLowerCase()))]
  // Said at every start: anyone who reaches the port can send these headers.
  if (trusted.length > 0) {
    log(`fastify-mongo-crud: guards and scopes trust the headers ${trusted.join(', ')} as they arrive: serve behind a gateway that sets them, or verify tokens with 'auth'`)
  }
  log(`fastify-mongo-crud: listening on ${served.origin} (${served.database})`)
  if (command.admin === true || loaded.api.admin === true) log(`fastify-mongo-crud: admin page at ${served.origin}/admin`)
  // The document is what client generators read (docs/clients.md).
  log(`fastify-mongo-crud: docs at ${served.origin}/docs and ${served.origin}/redoc, OpenAPI document at ${served.origin}/openapi.json. Ctrl-C stops.`)
  await stopped
  await served.close()
  log('fastify-mongo-crud: stopped')
}
