import { badValueError } from '../errors.js'

/**
 * MongoDB's test fail points, the ones the engine implements: `maxTimeAlwaysTimeOut` makes every
 * operation that carries a `maxTimeMS` fail with MaxTimeMSExpired (code 50) at its first check,
 * however fast it is, so a time-out can be tested without a slow query or a clock.
 *
 * Like a `mongod`'s, fail points are process-wide: they apply to every engine of the process. They
 * are set with the `configureFailPoint` command (over the wire, or `EmbeddedDb.configureFailPoint`).
 */
export type FailPointName = 'maxTimeAlwaysTimeOut'
export type FailPointMode = 'alwaysOn' | 'off'

const NAMES: ReadonlySet<string> = new Set<FailPointName>(['maxTimeAlwaysTimeOut'])
const active = new Set<FailPointName>()

/** `{ configureFailPoint: name, mode: 'alwaysOn' | 'off' }`; unknown names and modes are BadValue. */
export function configureFailPoint(name: unknown, mode: unknown): void {
  if (typeof name !== 'string' || !NAMES.has(name)) throw badValueError(`Unknown fail point: ${String(name)}`)
  if (mode === 'alwaysOn') active.add(name as FailPointName)
  else if (mode === 'off') active.delete(name as FailPointName)
  else throw badValueError(`Fail point mode must be 'alwaysOn' or 'off', got ${JSON.stringify(mode)}`)
}

export function failPointOn(name: FailPointName): boolean {
  return active.has(name)
}
