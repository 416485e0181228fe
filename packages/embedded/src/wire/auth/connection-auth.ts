import type { ScramConversation } from './scram-sha-256.js'

/** A user's name and the database it belongs to (its `authSource`). */
export interface UserName {
  user: string
  db: string
}

/** A SASL conversation under way: its database (the user's), its SCRAM state, and whether the client skips the last empty exchange. */
interface Conversation {
  id: number
  db: string
  scram: ScramConversation
  skipEmptyExchange: boolean
}

/**
 * Who one connection is logged in as, and its SASL conversation under way. A driver authenticates
 * each connection of its pool once, right after its handshake; commands on the connection then run
 * with that user's roles, read from the user store at each command (a user dropped or given other
 * roles meanwhile is seen at once, as on mongod). One user per connection, as mongod since 6.0: a
 * login as another user replaces the first.
 */
export class ConnectionAuth {
  #user: UserName | undefined
  #conversation: Conversation | undefined
  #nextConversationId = 1

  get user(): UserName | undefined {
    return this.#user
  }

  /** Registers a conversation just started; its id, which `saslContinue` names. */
  begin(db: string, scram: ScramConversation, skipEmptyExchange: boolean): number {
    const id = this.#nextConversationId++
    this.#conversation = { id, db, scram, skipEmptyExchange }
    return id
  }

  /** The conversation `saslContinue` names, if it is the one under way. */
  conversation(id: number): Conversation | undefined {
    return this.#conversation?.id === id ? this.#conversation : undefined
  }

  /** The conversation succeeded: the connection is now logged in as its user. */
  succeed(user: UserName): void {
    this.#user = user
    this.#conversation = undefined
  }

  /** A failed step ends the conversation: the client starts again from `saslStart`. */
  abandon(): void {
    this.#conversation = undefined
  }

  logout(): void {
    this.#user = undefined
    this.#conversation = undefined
  }
}
