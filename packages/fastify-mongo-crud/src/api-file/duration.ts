/** A duration as the file writes it: milliseconds, or a count and a unit (`1 minute`, `30s`, `2 hours`). */

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** The text durations the file takes; its JSON Schema refuses any other. */
export const DURATION_PATTERN = '^[1-9][0-9]{0,8} ?(ms|s|seconds?|m|minutes?|h|hours?|d|days?)$'

/** Milliseconds of a duration the JSON Schema accepted. */
export function parseDuration(value: number | string): number {
  if (typeof value === 'number') return value
  const [, count, unit] = /^(\d+) ?([a-z]+)$/.exec(value) ?? []
  const key = unit === 'ms' ? 'ms' : (unit ?? 'ms')[0]!
  return Number(count) * (UNITS[key] ?? 1)
}

/** `1 minute`, `90 seconds`: how a message says a duration in milliseconds. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`
  }
  return `${ms} ms`
}
