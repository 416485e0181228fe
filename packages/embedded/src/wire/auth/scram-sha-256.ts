import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { saslprep } from '@mongodb-js/saslprep'
import { authenticationFailed, badValue } from '../wire-error.js'

export const SCRAM_SHA_256 = 'SCRAM-SHA-256'
/** mongod's default `scramSHA256IterationCount`; drivers refuse fewer than 4096. */
export const DEFAULT_ITERATIONS = 15_000
/** mongod's salt length for SCRAM-SHA-256 (the hash's 32 bytes less 4). */
const SALT_BYTES = 28
const derive = promisify(pbkdf2)

/** What a user's SCRAM-SHA-256 login is checked against (RFC 5802 §3): never the password, nor anything that logs in by itself. */
export interface ScramCredentials {
  iterationCount: number
  /** Base64. */
  salt: string
  /** Base64 of H(ClientKey): checks a client's proof, cannot make one. */
  storedKey: string
  /** Base64 of HMAC(SaltedPassword, "Server Key"): proves the server to the client. */
  serverKey: string
}

/**
 * The credentials of `password`, SASLprep'd as the driver prepares it (RFC 4013, by the package the
 * driver itself uses, so both sides normalise alike), then salted and stretched with PBKDF2. A
 * password SASLprep refuses (control or unassigned characters, bidirectional mixes) is BadValue: the
 * driver could not log in with it either. Asynchronous: 15 000 iterations take milliseconds.
 */
export async function deriveCredentials(password: string, iterationCount = DEFAULT_ITERATIONS, salt: Buffer = randomBytes(SALT_BYTES)): Promise<ScramCredentials> {
  let prepared: string
  try {
    prepared = saslprep(password)
  } catch (error) {
    // The package fails with a TypeError on a password it maps to nothing (only characters SASLprep drops).
    if (error instanceof TypeError) throw badValue('Password cannot be empty')
    throw badValue(`the password cannot be normalised for SCRAM-SHA-256 (SASLprep, RFC 4013): ${(error as Error).message}`)
  }
  if (prepared === '') throw badValue('Password cannot be empty')
  const salted = await derive(prepared, salt, iterationCount, 32, 'sha256')
  const clientKey = hmac(salted, 'Client Key')
  return {
    iterationCount,
    salt: salt.toString('base64'),
    storedKey: sha256(clientKey).toString('base64'),
    serverKey: hmac(salted, 'Server Key').toString('base64'),
  }
}

/** Finds the credentials of a user of the conversation's database (undefined: no such user). */
export type CredentialLookup = (user: string) => ScramCredentials | undefined

/**
 * The server side of one SCRAM-SHA-256 conversation (RFC 5802, RFC 7677), as MongoDB runs it in
 * `saslStart` / `saslContinue`: the client's first message names the user and a nonce; the server
 * answers its nonce, the salt and the iteration count; the client's final message proves it knows the
 * password; the server checks the proof against the stored key and answers its own signature. Any
 * failure, an unknown user included, is the same AuthenticationFailed (18), as mongod answers, so a
 * client learns nothing of which users exist. No channel binding (`p=`), as MongoDB.
 */
export class ScramConversation {
  readonly user: string
  readonly #credentials: ScramCredentials
  readonly #clientFirstBare: string
  readonly #serverFirst: string
  readonly #gs2Header: string
  readonly #nonce: string
  #step: 'proof' | 'ack' | 'done' = 'proof'

  private constructor(user: string, credentials: ScramCredentials, gs2Header: string, clientFirstBare: string, nonce: string) {
    this.user = user
    this.#credentials = credentials
    this.#gs2Header = gs2Header
    this.#clientFirstBare = clientFirstBare
    this.#nonce = nonce
    this.#serverFirst = `r=${nonce},s=${credentials.salt},i=${credentials.iterationCount}`
  }

  /** Starts a conversation from the client's first message; throws AuthenticationFailed. (`serverNonce`: for RFC 7677's test vector.) */
  static start(payload: Uint8Array, lookup: CredentialLookup, serverNonce = randomBytes(24).toString('base64')): ScramConversation {
    const message = utf8(payload)
    // gs2-header: "n" (no channel binding) or "y" (client could, believes the server cannot), an optional authzid, then the bare message.
    const match = /^([ny]),(a=[^,]*)?,(.*)$/s.exec(message)
    if (!match) throw failure()
    const [, , authzid, bare] = match as unknown as [string, string, string | undefined, string]
    if (authzid !== undefined) throw failure()
    const fields = attributes(bare)
    const user = fields.get('n')
    const clientNonce = fields.get('r')
    if (user === undefined || clientNonce === undefined || clientNonce === '' || fields.has('m') || !bare.startsWith('n=')) throw failure()
    const name = decodeName(user)
    const credentials = name === undefined ? undefined : lookup(name)
    if (name === undefined || credentials === undefined) throw failure()
    const nonce = clientNonce + serverNonce
    return new ScramConversation(name, credentials, message.slice(0, message.length - bare.length), bare, nonce)
  }

  /** The server's first message, the answer to `saslStart`. */
  get serverFirst(): Uint8Array {
    return Buffer.from(this.#serverFirst)
  }

  /**
   * The next step: the client's final message is checked (the answer is the server's signature),
   * then, unless the client asked to skip it, one empty exchange ends the conversation. `done` says
   * the user is authenticated.
   */
  continue(payload: Uint8Array, skipEmptyExchange: boolean): { payload: Uint8Array, done: boolean } {
    if (this.#step === 'ack') {
      this.#step = 'done'
      return { payload: new Uint8Array(), done: true }
    }
    if (this.#step === 'done') throw failure()
    const message = utf8(payload)
    const cut = message.lastIndexOf(',p=')
    if (cut < 0) throw failure()
    const withoutProof = message.slice(0, cut)
    const fields = attributes(withoutProof)
    const binding = fields.get('c')
    if (binding !== Buffer.from(this.#gs2Header).toString('base64') || fields.get('r') !== this.#nonce) throw failure()
    const proof = Buffer.from(message.slice(cut + 3), 'base64')
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`
    const storedKey = Buffer.from(this.#credentials.storedKey, 'base64')
    const signature = hmac(storedKey, authMessage)
    if (proof.length !== signature.length) throw failure()
    const clientKey = Buffer.alloc(proof.length)
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ signature[i]!
    if (!timingSafeEqual(sha256(clientKey), storedKey)) throw failure()
    const serverSignature = hmac(Buffer.from(this.#credentials.serverKey, 'base64'), authMessage)
    this.#step = skipEmptyExchange ? 'done' : 'ack'
    return { payload: Buffer.from(`v=${serverSignature.toString('base64')}`), done: skipEmptyExchange }
  }
}

/** The attributes of a SCRAM message (`n=user,r=nonce`), by their one-letter names. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of message.split(',')) {
    if (part.length < 2 || part[1] !== '=') throw failure()
    out.set(part[0]!, part.slice(2))
  }
  return out
}

/** A SCRAM `saslname`: `=2C` is a comma, `=3D` an equals sign, and no other `=` may appear. */
function decodeName(encoded: string): string | undefined {
  if (/=(?!2C|3D)/.test(encoded)) return undefined
  const name = encoded.replaceAll('=2C', ',').replaceAll('=3D', '=')
  return name === '' ? undefined : name
}

function utf8(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  if (text.includes('\uFFFD')) throw failure()
  return text
}

function hmac(key: Uint8Array, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest()
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest()
}

function failure() {
  return authenticationFailed()
}
