export type { Document, FindOptions } from './document.js'
export { EmbeddedCollection, EmbeddedDb, type EmbeddedOptions, openEmbedded } from './open-embedded.js'
export { startWireServer, type WireServer, type WireServerOptions } from './wire/wire-server.js'
