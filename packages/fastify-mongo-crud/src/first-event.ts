import type { EventEmitter } from 'node:events'

/**
 * Resolves at the first of `events` on `emitter`, then listens to none of them: a response that
 * drained or closed, a process told to stop by SIGINT or SIGTERM. The listeners are attached before
 * this returns, so an event that comes at once is not missed.
 */
export function firstEvent(emitter: Pick<EventEmitter, 'on' | 'off'>, events: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) emitter.off(event, done)
      resolve()
    }
    for (const event of events) emitter.on(event, done)
  })
}
