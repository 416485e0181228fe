export type { RE2JS } from 're2js'
export { compileRegex, MAX_PROGRAM_SIZE, REGEX_OPTIONS, RegexRefusal } from './compile-regex.js'
