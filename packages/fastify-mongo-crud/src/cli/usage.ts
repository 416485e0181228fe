/** The command's usage: of the whole command, and of each subcommand (`<command> --help`). */

/** A bad call of the command: main prints its message, then the usage of the command called (exit code 2). */
export class UsageError extends Error {}

export const COMMANDS = ['init', 'serve', 'check', 'import', 'import-rules'] as const
export type CommandName = (typeof COMMANDS)[number]

export const isCommand = (name: string): name is CommandName => (COMMANDS as readonly string[]).includes(name)

const DATABASE = `  The database: --data, else MONGODB_URI (MongoDB), else FMC_DATA_DIR (embedded engine), else the
  file's "database", else the embedded engine in memory. The embedded engine is the package
  @fastify-mongo-crud/embedded, installed separately.`

const USAGES: Record<CommandName | 'all', string> = {
  all: `Usage: fastify-mongo-crud <command> [options]

  init                     Writes a starter api.json here, and ignores its data directory in .gitignore
  serve <api.json>         Serves the API the file declares, with its docs at /docs and /redoc
  check <api.json>         Runs every check serve runs and prints every error of the file, at its line
  import <router> <file>   Loads documents (a .json array, or .ndjson) as the router's creates, all or none
  import-rules <rules.json> Prints the access list an App Services rules.json amounts to

  -h, --help               This help; <command> --help: the help of the command
  -v, --version            The version of fastify-mongo-crud

  File format: schema/api-file.schema.json in this package, docs/api-file.md in the repository.`,
  init: `Usage: fastify-mongo-crud init

  Writes a starter api.json in the current folder: a model and its router, each key explained by the
  description fields, its data in ./data on the embedded engine. Adds /data/ to .gitignore (writes
  one if there is none). Refuses, changing nothing, when api.json exists.`,
  serve: `Usage: fastify-mongo-crud serve <api.json> [--port 8000] [--host 127.0.0.1] [--data ./data] [--log-level info] [--admin]

  Serves the API the file declares, with its docs at /docs and /redoc. Ctrl-C stops it.
  --port  TCP port (default: PORT, else 8000; 0 picks a free one).
  --host  Interface to listen on (default: HOST, else 127.0.0.1).
  --data  Data directory of the embedded engine (created if missing).
  --log-level  fatal, error, warn, info (every request), debug, trace or silent
          (default: the file's logLevel, else warn).
  --admin The admin page at /admin (as the file's "admin": true).

${DATABASE}
  FMC_SECRET (at least 32 characters) seals page cursors and keys ETags: give every instance serving
  one API the same, so that a cursor or ETag one answered holds on the others.`,
  check: `Usage: fastify-mongo-crud check <api.json>

  Runs every check serve runs (the routers' registration too, on no database) and prints every
  error of the file (line:column), serving nothing. Exit code 1 when there is one.`,
  import: `Usage: fastify-mongo-crud import <router> <documents.json|documents.ndjson> [--file api.json] [--data ./data]

  Loads documents into the collection of a router of the API file (named by its name or its prefix),
  each checked as the router's create checks it: the model, unknown keys, unique indexes. A .json file
  holds an array of documents, a .ndjson file a document per line. Each refused document is printed
  with its line; if any is refused, none is written (they are written in one transaction).
  --file  The API file (default: api.json).
  --data  Data directory of the embedded engine.

  The database is the one serve would serve: --data, else MONGODB_URI, else FMC_DATA_DIR, else the
  file's "database". Without any, the import is refused: into memory, it would be lost at exit.`,
  'import-rules': `Usage: fastify-mongo-crud import-rules <rules.json>

  Prints the "access" list (JSON) an App Services rules.json (a collection's, or default_rule.json)
  amounts to, to paste under a router of the API file: apply_when on %%user.id, %%user.data.<claim> or
  a request header as "when", document_filters and permissions as filters, field rules as hiddenFields
  and readOnlyFields. What has no exact equivalent is printed on stderr at its place, and then no list
  is printed (exit code 1): nothing is guessed. docs/data-api.md lists what maps.`,
}

/** The usage of the command, or of one subcommand. */
export const usageOf = (command?: CommandName): string => USAGES[command ?? 'all']
