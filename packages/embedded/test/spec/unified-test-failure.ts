/**
 * How a unified test failed, so the list of known failures says what kind of work each one is:
 * - `refusal`: the engine answered an error where MongoDB succeeds;
 * - `wrong-error`: both refuse, but with a different error (code, message or client/server side);
 * - `silent`: the engine answered without error but not what MongoDB answers (or accepted what MongoDB refuses);
 * - `events`: the commands the driver sent or the replies it got differ from the expected command
 *   events (the engine's doing when a reply differs, e.g. batching; the driver's when a command does);
 * - `runner`: this runner cannot express the test.
 */
export type FailureKind = 'refusal' | 'wrong-error' | 'silent' | 'events' | 'runner'

export class UnifiedTestFailure extends Error {
  readonly kind: FailureKind

  constructor(kind: FailureKind, message: string) {
    super(`[${kind}] ${message}`)
    this.name = 'UnifiedTestFailure'
    this.kind = kind
  }
}
