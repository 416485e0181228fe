import type { Document } from '../../document.js'
import type { FailPointMode, FailPointName } from '../../pace/fail-points.js'
import { configureFailCommand, configureFailGetMore } from '../command-fail-point.js'
import { WireError } from '../wire-error.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/**
 * `configureFailPoint` (admin database only, as on mongod): `{ configureFailPoint: 'maxTimeAlwaysTimeOut',
 * mode: 'alwaysOn' | 'off' }`, `{ configureFailPoint: 'failCommand', mode, data }`, or
 * `{ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode, data: { errorCode } }`. MongoDB's own
 * spec tests drive time-outs and command failures this way.
 */
function configure(command: Document, context: CommandContext): Document {
  if (context.dbName !== 'admin') throw new WireError(13, 'Unauthorized', 'configureFailPoint may only be run against the admin database.')
  // As sent: the engine refuses an unknown fail point or mode (BadValue).
  if (command['configureFailPoint'] === 'failCommand') configureFailCommand(command['mode'], command['data'])
  else if (command['configureFailPoint'] === 'failGetMoreAfterCursorCheckout') configureFailGetMore(command['mode'], command['data'])
  else context.db.configureFailPoint(command['configureFailPoint'] as FailPointName, command['mode'] as FailPointMode)
  return { ok: 1 }
}

export const FAIL_POINT_COMMANDS: Record<string, CommandHandler> = { configureFailPoint: configure }
