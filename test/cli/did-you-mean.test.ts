import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { closestName, didYouMean } from '../../packages/fastify-mongo-crud/src/did-you-mean.ts'

/** The one rule every "did you mean" of check, registration and the command line follows. */
describe('the suggestion for a misspelt name', () => {
  it('finds a name one edit away: a letter missing, extra, changed, or two neighbours swapped', () => {
    assert.equal(closestName('colection', ['prefix', 'collection', 'model']), 'collection')
    assert.equal(closestName('modell', ['prefix', 'collection', 'model']), 'model')
    assert.equal(closestName('titel', ['rank', 'title']), 'title')
    assert.equal(closestName('Nte', ['Note', 'Tag']), 'Note')
  })

  it('ignores case, and never suggests the name itself', () => {
    assert.equal(closestName('DeleteOne', ['getOne', 'deleteOne']), 'deleteOne')
    assert.equal(closestName('label', ['label']), undefined)
  })

  it('allows a third of the longer name in edits (at least one): longer names may be further off, short ones not', () => {
    assert.equal(closestName('secutiryShceme', ['securityScheme']), 'securityScheme')
    assert.equal(closestName('age', ['name']), undefined)
    assert.equal(closestName('Tgs', ['Tag']), undefined)
    assert.equal(closestName('x', ['y']), 'y')
  })

  it('takes the closest, and on a tie the first known name', () => {
    assert.equal(closestName('rnak', ['rank', 'rang']), 'rank')
    assert.equal(closestName('tag', ['tab', 'tan']), 'tab')
    assert.equal(closestName('tag', ['tan', 'tab']), 'tan')
  })

  it("is said as the end of a message: `: did you mean 'x'?`, or nothing", () => {
    assert.equal(didYouMean('srve', ['init', 'serve']), ": did you mean 'serve'?")
    assert.equal(didYouMean('start', ['init', 'serve']), '')
  })
})
