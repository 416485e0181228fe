import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MongoInvalidArgumentError, MongoServerError } from 'mongodb'
import { checkExpectedError } from './run-operation.ts'
import { compareVersions, skipReason, type UnifiedFile, type UnifiedTest } from './unified-runner.ts'

const standalone70 = { version: '7.0.0', topology: 'single' } as const
const file = (runOnRequirements?: UnifiedFile['runOnRequirements']): UnifiedFile => ({ description: 'f', schemaVersion: '1.0', tests: [], ...(runOnRequirements ? { runOnRequirements } : {}) })
const test = (fields: Partial<UnifiedTest> = {}): UnifiedTest => ({ description: 't', operations: [], ...fields })

describe('compareVersions', () => {
  it('compares dotted versions part by part, a missing part counting as 0', () => {
    assert.equal(compareVersions('7.0.0', '4.2.99'), 1)
    assert.equal(compareVersions('7.0.0', '7.99'), -1)
    assert.equal(compareVersions('4.2', '4.2.0'), 0)
    assert.equal(compareVersions('7.0.0', '8.0'), -1)
  })
})

describe('skipReason', () => {
  it('runs a test whose requirements a standalone 7.0 meets', () => {
    assert.equal(skipReason(file([{ minServerVersion: '4.4' }]), test(), standalone70), undefined)
    assert.equal(skipReason(file(), test({ runOnRequirements: [{ topologies: ['single', 'replicaset'] }] }), standalone70), undefined)
  })

  it('skips versions above or below, other topologies and serverless, saying why', () => {
    assert.match(skipReason(file([{ minServerVersion: '8.0' }]), test(), standalone70) ?? '', /needs MongoDB 8\.0/)
    assert.match(skipReason(file(), test({ runOnRequirements: [{ maxServerVersion: '4.2.99' }] }), standalone70) ?? '', /at most 4\.2\.99/)
    assert.match(skipReason(file(), test({ runOnRequirements: [{ topologies: ['replicaset'] }] }), standalone70) ?? '', /replicaset/)
    assert.match(skipReason(file(), test({ runOnRequirements: [{ serverless: 'require' }] }), standalone70) ?? '', /serverless/)
  })

  it('skips the tests of what the Node driver sends, which it does not send to any server', () => {
    const bypass = { ...file(), description: 'bypassDocumentValidation' }
    assert.match(skipReason(bypass, test({ description: 'InsertMany passes bypassDocumentValidation: false' }), standalone70) ?? '', /tests the driver, not the server/)
    assert.equal(skipReason(bypass, test({ description: 'InsertMany passes bypassDocumentValidation: true' }), standalone70), undefined)
  })

  it('runs when any one of several requirements is met', () => {
    assert.equal(skipReason(file([{ minServerVersion: '8.0' }, { maxServerVersion: '7.99' }]), test(), standalone70), undefined)
  })
})

describe('checkExpectedError', () => {
  const serverError = new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000 duplicate key error' })

  it('accepts a server error with the expected code, name and message', () => {
    assert.equal(checkExpectedError({ isClientError: false, errorCode: 11000, errorCodeName: 'DuplicateKey', errorContains: 'duplicate KEY' }, serverError), undefined)
    assert.equal(checkExpectedError({ errorResponse: { code: 11000 } }, serverError), undefined)
  })

  it('refuses another code, a missing message, or the wrong side', () => {
    assert.equal(checkExpectedError({ errorCode: 2 }, serverError)?.kind, 'wrong-error')
    assert.equal(checkExpectedError({ errorContains: 'unknown field' }, serverError)?.kind, 'wrong-error')
    assert.equal(checkExpectedError({ isClientError: true }, serverError)?.kind, 'wrong-error')
    assert.equal(checkExpectedError({ isClientError: false }, new MongoInvalidArgumentError('bad'))?.kind, 'wrong-error')
    assert.equal(checkExpectedError({ isClientError: true }, new MongoInvalidArgumentError('bad')), undefined)
  })
})
