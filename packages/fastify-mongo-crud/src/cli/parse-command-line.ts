import { didYouMean } from '../did-you-mean.js'
import { type ImportRulesCommand, parseImportRulesArgs } from './import-rules.js'
import { type ImportCommand, parseImportArgs } from './parse-import-args.js'
import { parseServeArgs, type ServeCommand } from './parse-serve-args.js'
import { COMMANDS, type CommandName, isCommand, UsageError } from './usage.js'

/** What the command line asks for. */
export type CliCommand = ServeCommand | ImportCommand | ImportRulesCommand | { command: 'init' } | { command: 'help', topic?: CommandName } | { command: 'version' }

const HELP = ['--help', '-h']
const VERSION = ['--version', '-v']

/**
 * The command line as users of command-line tools expect it: `--version`, `--help`, `help <command>`
 * (`--help <command>`) and `<command> --help` answer on stdout; no command, an unknown command or option, a missing or
 * extra argument is a UsageError (main prints it with the usage, on stderr, exit code 2).
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  const [first, ...rest] = argv
  if (first === undefined) throw new UsageError('give a command')
  if (VERSION.includes(first)) {
    if (rest.length > 0) throw new UsageError(`${first} takes no argument, got ${rest.join(' ')}`)
    return { command: 'version' }
  }
  if (first === 'help' || HELP.includes(first)) {
    if (rest.length > 1) throw new UsageError(`${first} takes a command at most, got ${rest.join(' ')}`)
    return { command: 'help', ...helpTopic(rest[0]) }
  }
  if (!isCommand(first)) {
    if (first.startsWith('-')) throw new UsageError(`unknown option '${first}'${didYouMean(first, [...HELP, ...VERSION])}`)
    throw new UsageError(`unknown command '${first}' (commands: ${COMMANDS.join(', ')})${didYouMean(first, COMMANDS)}`)
  }
  if (rest.some((arg) => HELP.includes(arg))) return { command: 'help', topic: first }
  switch (first) {
    case 'init':
      if (rest.length > 0) throw new UsageError(`init takes no argument, got ${rest.join(' ')}: it writes into the current folder`)
      return { command: 'init' }
    case 'import':
      return parseImportArgs(rest)
    case 'import-rules':
      return parseImportRulesArgs(rest)
    default: {
      const parsed = parseServeArgs(argv, env)
      return parsed.command === 'help' ? { command: 'help', topic: first } : parsed
    }
  }
}

function helpTopic(topic: string | undefined): { topic?: CommandName } {
  if (topic === undefined) return {}
  if (!isCommand(topic)) throw new UsageError(`unknown command '${topic}' (commands: ${COMMANDS.join(', ')})${didYouMean(topic, COMMANDS)}`)
  return { topic }
}
