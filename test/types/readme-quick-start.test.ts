/**
 * The README's quick start compiles with `tsc --strict` in a fresh project that sees only the BUILT
 * packages (dist/ declarations, as npm users get them), and a misuse the type tests refuse is refused there
 * too. Run after `npm run build` (`npm test` builds first).
 */
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { errorsOf, freshProject, quickStart, requireBuiltPackages, tsc } from '../harness/fresh-project.ts'

/**
 * The most type instantiations the quick start (and the misuse beside it) may cost to check, with
 * `skipLibCheck` as `tsc --init` sets it: the quick start alone cost 79 k before its options were typed field by
 * field, 86 k after. A count, not a time: the same on every machine, so a type of the library that multiplies
 * the cost fails here (bench/type-check-cost.ts measures the times, and the cost without `skipLibCheck`).
 */
const INSTANTIATION_BUDGET = 150_000

describe('README quick start under tsc --strict', { timeout: 60_000 }, () => {
  let dir = ''
  let result = { status: 0, output: '' }
  before(async () => {
    requireBuiltPackages()
    dir = await freshProject()
    const code = await quickStart()
    // One misuse from the type tests, in a file of its own; one compiler run checks both (it takes seconds).
    const misuse = code.replace('model: User,', 'model: UserOut,')
    assert.notEqual(misuse, code, 'the quick start no longer passes `model: User,`')
    await writeFile(join(dir, 'quick-start.ts'), code)
    await writeFile(join(dir, 'misuse.ts'), misuse)
    // --erasableSyntaxOnly: the README says Node 22.18 or newer runs the file as it is (`node app.ts`),
    // which strips types and runs nothing TypeScript would have to compile (enums, namespaces, parameter properties).
    result = await tsc(dir, ['--extendedDiagnostics', '--erasableSyntaxOnly'])
  })
  after(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  it('compiles in a fresh project against the built packages', () => {
    assert.deepEqual(errorsOf(result.output, 'quick-start.ts'), [], result.output)
  })

  it(`costs fewer than ${INSTANTIATION_BUDGET} type instantiations to check`, () => {
    const instantiations = Number(/^Instantiations:\s+(\d+)$/m.exec(result.output)?.[1])
    assert.ok(instantiations > 0, result.output)
    assert.ok(instantiations < INSTANTIATION_BUDGET, `${instantiations} instantiations`)
  })

  it('refuses an output model passed as model (TS2769), as the type tests do', () => {
    assert.notEqual(result.status, 0, 'tsc accepted an output model as model')
    const errors = errorsOf(result.output, 'misuse.ts')
    assert.equal(errors.length, 1, result.output)
    assert.match(errors[0] ?? '', /^misuse\.ts\(\d+,\d+\): error TS2769: No overload matches this call/)
    assert.match(result.output, /Type '"out"' is not assignable to type '"in"'/)
  })
})
