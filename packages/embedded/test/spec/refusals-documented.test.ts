import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * The engine's README promises that its list of refusals is exactly what MongoDB's CRUD
 * specification tests find refused (known-failures.json, which the spec runner keeps true: a
 * listed test that passes fails the run). This needs no spec data, so it runs everywhere.
 */
const here = dirname(fileURLToPath(import.meta.url))
const readme = readFileSync(join(here, '../../README.md'), 'utf8')
const knownFailures = JSON.parse(readFileSync(join(here, 'known-failures.json'), 'utf8')) as Record<string, Record<string, string>>

const section = /<!-- spec-refusals:start -->([\s\S]*?)<!-- spec-refusals:end -->/.exec(readme)?.[1] ?? ''
/** Each bullet names, in its first code span, a fragment of the error message the engine answers. */
const documented = [...section.matchAll(/^- `([^`]+)`/gm)].map((match) => match[1]!)
const failures = Object.entries(knownFailures).flatMap(([file, tests]) => Object.entries(tests).map(([test, reason]) => ({ file, test, reason })))

describe('the README lists exactly what the specification tests find refused', () => {
  it('has the list', () => {
    assert.ok(documented.length > 0, 'packages/embedded/README.md has no <!-- spec-refusals --> list')
  })

  it('every remaining known failure is a refusal with an error, not a silent or different answer', () => {
    const notRefusals = failures.filter(({ reason }) => !reason.startsWith('[refusal]'))
    assert.deepEqual(notRefusals, [])
  })

  it('every refusal the tests meet is listed', () => {
    const unlisted = failures.filter(({ reason }) => !documented.some((fragment) => reason.includes(fragment)))
    assert.deepEqual(unlisted, [])
  })

  it('every listed refusal is one the tests meet', () => {
    const unmet = documented.filter((fragment) => !failures.some(({ reason }) => reason.includes(fragment)))
    assert.deepEqual(unmet, [])
  })
})
