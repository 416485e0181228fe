import { didYouMean } from '../did-you-mean.js'
import type { ApiFile, Guards } from './api-file.js'
import type { Report } from './issue-reporter.js'
import { escapePointer, type Located } from './parse-json-positions.js'
import { derivedSchemeName } from './to-openapi-options.js'

/** A guard's or a scope's: what it reads (a header, or a claim of the verified token) and the scheme it names. */
type AccessCheck = { header?: string | undefined, claim?: string | undefined, securityScheme?: string | undefined }

/**
 * The security schemes a file's checks name: a scheme named by a guard, a scope or a security
 * requirement is one `openapi.securitySchemes` declares; a check that names none gets one named after
 * its header (to-openapi-options.ts), and two headers that get one name would share one scheme, which
 * documents only the first header.
 */
export class SecuritySchemeChecks {
  /** The declared schemes; undefined when the JSON Schema refused `openapi`: then nothing here is checked. */
  readonly #declared: string[] | undefined
  readonly #derived = new Map<string, { header: string, pointer: string }>()
  readonly #positions: ReadonlyMap<string, Located>
  readonly #report: Report
  /** Whether the file verifies tokens (`auth`), which claim checks need; undefined when the JSON Schema refused `auth`. */
  readonly #auth: boolean | undefined

  constructor(file: ApiFile, positions: ReadonlyMap<string, Located>, report: Report, refusedTop: ReadonlySet<string> = new Set()) {
    this.#declared = refusedTop.has('openapi') ? undefined : Object.keys(file.openapi?.securitySchemes ?? {})
    this.#auth = refusedTop.has('auth') ? undefined : file.auth !== undefined
    this.#positions = positions
    this.#report = report
  }

  /** The names of `openapi.security`'s requirements, at their keys. */
  requirements(file: ApiFile): void {
    if (this.#declared === undefined) return
    file.openapi?.security?.forEach((requirement, index) => {
      for (const name of Object.keys(requirement)) this.scheme(name, `/openapi/security/${index}/${escapePointer(name)}`, true)
    })
  }

  scheme(name: string | undefined, pointer: string, onKey = false): void {
    if (name !== undefined && this.#declared !== undefined && !this.#declared.includes(name)) {
      this.#report(pointer, `unknown security scheme '${name}' (openapi.securitySchemes: ${this.#declared.join(', ') || 'none'})${didYouMean(name, this.#declared)}`, onKey)
    }
  }

  /** A guard's or a scope's: the scheme it names, or the one its header gives it; a claim check's: the file's `auth`. */
  check(access: AccessCheck, pointer: string): void {
    if (access.claim !== undefined) {
      this.#claimCheck(access, pointer)
      return
    }
    if (access.header === undefined) return
    this.scheme(access.securityScheme, `${pointer}/securityScheme`)
    if (access.securityScheme !== undefined || this.#declared === undefined) return
    const name = derivedSchemeName(access.header)
    // A scheme the file declares under that name documents them all, as the file says.
    if (this.#declared.includes(name)) return
    const header = access.header.toLowerCase()
    const first = this.#derived.get(name)
    if (first === undefined) this.#derived.set(name, { header, pointer: `${pointer}/header` })
    else if (first.header !== header) {
      const line = this.#positions.get(first.pointer)?.value.line
      this.#report(`${pointer}/header`, `header '${access.header}' and header '${first.header}' (line ${line}) both get the security scheme name '${name}': name one with 'securityScheme'`)
    }
  }

  /** A claim check reads the token `auth` verifies, and is documented by the scheme of `auth`. */
  #claimCheck(access: AccessCheck, pointer: string): void {
    if (access.header !== undefined) this.#report(`${pointer}/claim`, `a check reads a header or a claim, not both`, true)
    if (access.securityScheme !== undefined) {
      this.#report(`${pointer}/securityScheme`, `'securityScheme' names the scheme of a header check: a claim check is documented by the scheme of 'auth'`, true)
    }
    if (this.#auth === false) this.#report(`${pointer}/claim`, `a claim check needs the file's 'auth' key, which says how tokens are verified`)
  }

  guards(guards: Guards | undefined, pointer: string): void {
    for (const [route, list] of Object.entries(guards ?? {})) {
      list.forEach((guard, index) => {
        this.check(guard, `${pointer}/guards/${route}/${index}`)
      })
    }
  }
}
