import type { ApiFile, Guards } from './api-file.js'
import type { Report } from './issue-reporter.js'
import { escapePointer, type Located } from './parse-json-positions.js'
import { derivedSchemeName } from './to-openapi-options.js'

type HeaderCheck = { header: string, securityScheme?: string | undefined }

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

  constructor(file: ApiFile, positions: ReadonlyMap<string, Located>, report: Report, openapiRefused = false) {
    this.#declared = openapiRefused ? undefined : Object.keys(file.openapi?.securitySchemes ?? {})
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
      this.#report(pointer, `unknown security scheme '${name}' (openapi.securitySchemes: ${this.#declared.join(', ') || 'none'})`, onKey)
    }
  }

  /** A guard's or a scope's: the scheme it names, or the one its header gives it. */
  check(access: HeaderCheck, pointer: string): void {
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

  guards(guards: Guards | undefined, pointer: string): void {
    for (const [route, list] of Object.entries(guards ?? {})) {
      list.forEach((guard, index) => {
        this.check(guard, `${pointer}/guards/${route}/${index}`)
      })
    }
  }
}
