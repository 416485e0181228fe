import type { DriverDb } from 'fastify-mongo-crud'

/**
 * A db whose collections send every method call through `around`: it gets the collection's name, the
 * method's name and arguments, and `call`, which runs the real method. What `around` returns is the
 * call's result. Tests use it to count calls, or to hold or slip in another client's write between two.
 * Only `collection` is kept: a test that needs the db's `client` (transactions) adds it.
 */
export function interceptCollections(db: DriverDb, around: (call: () => unknown, method: string, args: unknown[], name: string) => unknown): Pick<DriverDb, 'collection'> {
  return {
    collection: (name: string) => {
      const collection = db.collection(name)
      return new Proxy(collection, {
        get: (target, property, receiver) => {
          const value = Reflect.get(target, property, receiver)
          if (typeof value !== 'function' || typeof property !== 'string') return value
          return (...args: unknown[]) => around(() => value.apply(target, args), property, args, name)
        },
      })
    },
  }
}
