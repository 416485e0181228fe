import type { FastifyServerOptions } from 'fastify'
import { SetupError } from './errors.js'

/** How the app's log is written: `pretty`, one human line per entry (pino-pretty's), or `json`, pino's JSON lines. */
export type LogFormat = 'pretty' | 'json'

const FORMATS: readonly string[] = ['pretty', 'json'] satisfies LogFormat[]

/** The environment variable that chooses the format when `createApp` is not given `logFormat`. */
export const LOG_FORMAT_VARIABLE = 'FMC_LOG_FORMAT'

/**
 * `logFormat` if given, else FMC_LOG_FORMAT if set, else `pretty` when stdout is a terminal (someone reads
 * it) and `json` otherwise (a file, a pipe, a log collector). A value that is neither is a SetupError.
 */
export function chooseLogFormat(logFormat: LogFormat | undefined, env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  const fromEnv = env[LOG_FORMAT_VARIABLE]
  const chosen: string | undefined = logFormat ?? (fromEnv === '' ? undefined : fromEnv)
  if (chosen === undefined) return stdout.isTTY === true ? 'pretty' : 'json'
  if (!FORMATS.includes(chosen)) {
    const name = logFormat === undefined ? LOG_FORMAT_VARIABLE : 'logFormat'
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `${name} must be 'pretty' or 'json', got ${JSON.stringify(chosen)}`)
  }
  return chosen as LogFormat
}

type LoggerOption = FastifyServerOptions['logger']

/**
 * Fastify's `logger` option, writing `format`. For `pretty`, a logger that writes to stdout (`true`, or
 * options without their own `stream`, `file` or `transport`) writes pino-pretty's lines instead, each as it
 * is logged (in this thread: no line is lost to an exit); any other logger is left as it is.
 */
export async function formattedLogger(logger: LoggerOption, format: LogFormat): Promise<LoggerOption> {
  if (format === 'json' || logger === undefined || logger === false) return logger
  const options = logger === true ? {} : logger
  if ('stream' in options || 'file' in options || 'transport' in options) return logger
  // Loaded only when used: an app that logs JSON never loads the formatter.
  const { default: pinoPretty } = await import('pino-pretty')
  const prettify = pinoPretty.prettyFactory({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId',
    messageFormat: '{if reqId}{reqId} {end}{msg}',
    singleLine: true,
  })
  return { ...options, stream: { write: (line: string) => process.stdout.write(prettify(line)) } }
}
