import { setFlagsFromString } from 'node:v8'

let installed = false

/**
 * The engine evaluates `$regex` with JavaScript's backtracking engine, whose matching cannot be
 * interrupted: one pathological pattern (`(.*a){12}$`) would freeze the process for seconds or more.
 * V8 can switch a regex that backtracks excessively to its linear-time engine, with the same results;
 * we turn that on once, when the engine opens. It only changes how pathological regexes run.
 */
export function installRegexGuard(): void {
  if (installed) return
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')
  installed = true
}
