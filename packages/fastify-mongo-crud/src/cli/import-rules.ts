import { readFile } from 'node:fs/promises'
import { CommandFailure } from './command-failure.js'
import { rulesToAccess } from './rules-to-access.js'
import { UsageError } from './usage.js'

/** `fastify-mongo-crud import-rules <rules.json>`. */
export interface ImportRulesCommand {
  command: 'import-rules'
  file: string
}

/** The command line of `import-rules`: one file, no option. */
export function parseImportRulesArgs(args: readonly string[]): ImportRulesCommand {
  const option = args.find((arg) => arg.startsWith('-'))
  if (option !== undefined) throw new UsageError(`unknown option '${option}': import-rules takes a rules.json and no option`)
  if (args.length !== 1) throw new UsageError(`import-rules takes one rules.json, got ${args.length === 0 ? 'none' : args.join(' ')}`)
  return { command: 'import-rules', file: args[0]! }
}

/**
 * Prints the `access` list an App Services rules.json amounts to (rules-to-access.ts), to paste under a
 * router of the API file. What has no exact equivalent is printed on stderr, each at its place, and
 * then no list is printed at all (exit code 1): a list lacking one role would let that role's callers
 * fall to the next one, and no part is guessed. What has no effect here is noted on stderr.
 */
export async function importRules(command: ImportRulesCommand): Promise<void> {
  let text: string
  try {
    text = await readFile(command.file, 'utf8')
  } catch (error) {
    throw new CommandFailure(`cannot read ${command.file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`)
  }
  let rules: unknown
  try {
    rules = JSON.parse(text)
  } catch (error) {
    throw new CommandFailure(`${command.file} is not JSON: ${(error as Error).message}`)
  }
  const { access, problems, notes } = rulesToAccess(rules)
  for (const note of notes) console.error(`${command.file}: note: ${note}`)
  if (problems.length > 0) {
    for (const problem of problems) console.error(`${command.file}: ${problem}`)
    throw new CommandFailure(`${problems.length} part${problems.length === 1 ? '' : 's'} of ${command.file} ${problems.length === 1 ? 'has' : 'have'} no exact equivalent (above): no access list was printed, since a list lacking a role would let its callers fall to the next one`)
  }
  console.log(JSON.stringify(access, null, 2))
}
