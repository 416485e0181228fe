import { MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'

/** Users: the password is accepted on input and never leaves the server. */
export const User = MongoModel('User', {
  name: Type.String({ minLength: 1 }),
  email: Type.String({ format: 'email' }),
  password: Type.String({ minLength: 8 }),
  role: Type.Union([Type.Literal('member'), Type.Literal('admin')], { default: 'member' }),
  age: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
})

/** Version 1 of the public user: the fields the first clients were promised. */
export const UserOutV1 = MongoModelOut('UserOutV1', {
  name: Type.String(),
  email: Type.String(),
})

/** Version 2 adds the role and age. */
export const UserOut = MongoModelOut('UserOut', {
  name: Type.String(),
  email: Type.String(),
  role: Type.String(),
  age: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
})

/** Notes belong to a user; each caller only ever sees their own. */
export const Note = MongoModel('Note', {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  body: Type.String({ maxLength: 10_000 }),
  owner: ObjectIdField({ description: 'The user owning the note' }),
  tags: Type.Optional(Type.Array(Type.String())),
})

/** Artists keep a private contact e-mail that only the artists router itself stores. */
export const Artist = MongoModel('Artist', {
  name: Type.String({ minLength: 1 }),
  country: Type.Optional(Type.String()),
  contactEmail: Type.Optional(Type.String({ format: 'email' })),
})
export const ArtistOut = MongoModelOut('ArtistOut', {
  name: Type.String(),
  country: Type.Optional(Type.String()),
})

/** Tracks reference their artists; GET responses populate them. */
export const Track = MongoModel('Track', {
  title: Type.String({ minLength: 1 }),
  durationSeconds: Type.Integer({ minimum: 1 }),
  artists: Type.Array(ObjectIdField(), { description: 'Artist ids; populated on GET' }),
})

/** Messages of a user: a second collection, reached under /users/{id}/messages. */
export const Message = MongoModel('Message', {
  text: Type.String({ minLength: 1, maxLength: 2000 }),
  userId: ObjectIdField({ description: 'Set from the path' }),
  sentAt: Type.Optional(Type.String({ format: 'date-time' })),
})

/** Addresses of a user: stored inside the user document, reached under /users/{id}/addresses. */
export const Address = MongoModel('Address', {
  label: Type.String(),
  city: Type.String(),
  zip: Type.Optional(Type.String()),
})
