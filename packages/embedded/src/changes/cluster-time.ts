import { Timestamp } from 'mongodb'

/**
 * The engine's clock is its change log: the time of the `n`th change is `Timestamp` of `n` (t the
 * high 32 bits, i the low ones). A change event's `clusterTime`, the wire server's `operationTime`
 * and a stream's `startAtOperationTime` are thus one order, exact, whatever the wall clock does.
 */
export function clusterTimeOf(changeNumber: number): Timestamp {
  return Timestamp.fromNumber(changeNumber)
}

/** The change number a time of this engine stands for; a value that is no Timestamp is refused by the caller. */
export function changeNumberOf(time: Timestamp): number {
  return time.toNumber()
}
