/** A failure the command explains in one sentence, without a stack trace (exit code 1): what is wrong and what to do. */
export class CommandFailure extends Error {}
