/**
 * Options for every mingo query, projection, update and pipeline the engine runs. Scripts
 * (`$where`, `$function`, `$accumulator`) are disabled: over the wire protocol any client could
 * otherwise run JavaScript inside the server process. mingo then refuses them with an error.
 */
export const MINGO_OPTIONS = Object.freeze({ scriptEnabled: false })
