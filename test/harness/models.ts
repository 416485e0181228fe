import { MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'

/** The input model most route tests use. `password` is the field an output model hides. */
export const User = MongoModel('User', {
  name: Type.String(),
  email: Type.String(),
  password: Type.String(),
  age: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  city: Type.Optional(Type.String()),
  managerId: Type.Optional(ObjectIdField()),
})

export const UserOut = MongoModelOut('UserOut', {
  name: Type.String(),
  email: Type.String(),
})

/** A document owned by a caller, for `filterDependency` scoping. */
export const Note = MongoModel('Note', {
  title: Type.String(),
  owner: Type.String(),
})

/** A model with the value kinds that must survive a round trip through the database. */
export const Event = MongoModel('Event', {
  title: Type.String(),
  startsAt: Type.String({ format: 'date-time' }),
  done: Type.Boolean(),
  score: Type.Number(),
  tags: Type.Array(Type.String()),
  location: Type.Object({
    city: Type.String(),
    geo: Type.Object({ lat: Type.Number(), lng: Type.Number() }),
  }),
  slots: Type.Array(Type.Object({ day: Type.Integer(), hours: Type.Array(Type.Integer()) })),
  organizerId: ObjectIdField(),
  attendeeIds: Type.Array(ObjectIdField()),
})

export const aliceInput = {
  name: 'alice',
  email: 'alice@example.com',
  password: 's3cret',
  age: 30,
}
