import { type DriverDb, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildAppWith } from './app.ts'
import { interceptCollections } from './intercept-collections.ts'

export type { RelationsAppSettings } from './app.ts'

/** `buildApp` with settings (a larger bodyLimit, a wrapped db), for relation tests. */
export const buildRelationsApp = buildAppWith

/** Counts the calls the routers make on each collection, by collection name and method. */
export class StoreCallCounter {
  private readonly counts = new Map<string, number>()

  /** A db whose collections count every method call, then forward it unchanged. */
  wrap(db: DriverDb): DriverDb {
    return interceptCollections(db, (call, method, _args, name) => {
      const key = `${name}.${method}`
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
      return call()
    })
  }

  /** Calls of `method` on `collection` since the last reset. */
  count(collection: string, method: string): number {
    return this.counts.get(`${collection}.${method}`) ?? 0
  }

  /** Every counted call since the last reset, as `collection.method` → count. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)))
  }

  reset(): void {
    this.counts.clear()
  }
}

/** A populated document: its hidden `secret` must never leave the server through `ArtistOut`. */
export const Artist = MongoModel('Artist', { name: Type.String(), secret: Type.String() })
export const ArtistOut = MongoModelOut('ArtistOut', { name: Type.String() })

export const Label = MongoModel('Label', { name: Type.String(), secret: Type.String() })
export const LabelOut = MongoModelOut('LabelOut', { name: Type.String() })

/** A document with an id-array reference (`artistIds`) and a single-id reference (`labelId`). */
export const Track = MongoModel('Track', {
  title: Type.String(),
  artistIds: Type.Array(ObjectIdField()),
  labelId: Type.Optional(ObjectIdField()),
})
export const TrackOut = MongoModelOut('TrackOut', {
  title: Type.String(),
  artistIds: Type.Array(Type.String()),
  labelId: Type.Optional(Type.String()),
})
/** An output model that leaves `artistIds` out: it must be neither populated nor shown. */
export const TrackTitleOut = MongoModelOut('TrackTitleOut', {
  title: Type.String(),
  labelId: Type.Optional(Type.String()),
})

/** The lookup parent. */
export const Author = MongoModel('Author', { name: Type.String() })

/** A lookup child; `authorId` (required) is the foreign field, an ObjectId reference to the author. */
export const Message = MongoModel('Message', {
  text: Type.String(),
  authorId: ObjectIdField(),
  rank: Type.Optional(Type.Integer()),
})

/** A lookup child whose foreign field is a plain string. */
export const Comment = MongoModel('Comment', { body: Type.String(), authorRef: Type.String() })

/** The embed parent. */
export const Person = MongoModel('Person', { name: Type.String(), city: Type.Optional(Type.String()) })

export const Address = MongoModel('Address', {
  street: Type.String(),
  city: Type.String(),
  zip: Type.Optional(Type.String()),
})
export const Phone = MongoModel('Phone', { number: Type.String(), kind: Type.String() })

/** An embedded item that can be made large, for the 16 MB parent limit. */
export const Attachment = MongoModel('Attachment', { data: Type.String() })
