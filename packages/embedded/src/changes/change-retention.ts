import { invalidArgumentError } from '../errors.js'
import { type ChangeRetention, DEFAULT_CHANGE_RETENTION } from '../storage/change-log-store.js'

/** `openEmbedded`'s `changeRetention`, checked before anything is opened. */
export function toChangeRetention(option: unknown): ChangeRetention {
  if (option === undefined) return DEFAULT_CHANGE_RETENTION
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw invalidArgumentError(`changeRetention must be an object { events?, ms? }, got ${JSON.stringify(option)}`)
  }
  const { events, ms, ...rest } = option as { events?: unknown, ms?: unknown }
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw invalidArgumentError(`changeRetention has unknown option ${unknown[0]} (known: events, ms)`)
  if (events !== undefined && !(Number.isSafeInteger(events) && (events as number) >= 1)) {
    throw invalidArgumentError(`changeRetention.events must be a whole number of at least 1, got ${JSON.stringify(events)}`)
  }
  if (ms !== undefined && !(typeof ms === 'number' && ms > 0 && Number.isFinite(ms))) {
    throw invalidArgumentError(`changeRetention.ms must be a positive number of milliseconds, got ${JSON.stringify(ms)}`)
  }
  return { events: (events as number | undefined) ?? DEFAULT_CHANGE_RETENTION.events, ms: ms as number | undefined }
}
