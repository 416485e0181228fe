import { CRUDRouter, createApp, DataAPI, type DataAPIOptions, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { App } from '../harness/app.ts'
import type { Json } from '../harness/seed.ts'
import type { OpenedStore, StoreMode } from '../harness/stores.ts'

/** The key every test sends (`apiKey`), and its caller's claims. */
export const KEY = 'data-api-test-key-0123456789abcdef'
export const BASE = '/app/data-api/endpoint/data/v1'

/** Items: every value kind the Data API's types map to, a hidden field (`secret`), an array of sub-documents. */
export const Item = MongoModel('DataItem', {
  name: Type.String(),
  qty: Type.Optional(Type.Integer({ minimum: 0 })),
  price: Type.Optional(Type.Number({ format: 'double' })),
  big: Type.Optional(Type.Integer({ format: 'int64' })),
  tags: Type.Optional(Type.Array(Type.String())),
  sizes: Type.Optional(Type.Array(Type.Object({ size: Type.String(), n: Type.Integer() }))),
  when: Type.Optional(Type.String({ format: 'date-time' })),
  ownerId: Type.Optional(ObjectIdField()),
  blob: Type.Optional(Type.String({ format: 'byte' })),
  dec: Type.Optional(Type.Union([Type.Number(), Type.String()])),
  secret: Type.Optional(Type.String()),
})
export const ItemOut = MongoModelOut('DataItemOut', {
  name: Type.String(),
  qty: Type.Optional(Type.Integer()),
  price: Type.Optional(Type.Number({ format: 'double' })),
  big: Type.Optional(Type.Integer({ format: 'int64' })),
  tags: Type.Optional(Type.Array(Type.String())),
  sizes: Type.Optional(Type.Array(Type.Object({ size: Type.String(), n: Type.Integer() }))),
  when: Type.Optional(Type.String({ format: 'date-time' })),
  ownerId: Type.Optional(Type.String({ format: 'objectid' })),
  blob: Type.Optional(Type.String({ format: 'byte' })),
  dec: Type.Optional(Type.Union([Type.Number(), Type.String()])),
})

/** Reviews of items, for `$lookup`: `internal` is hidden. */
export const Review = MongoModel('DataReview', { itemId: ObjectIdField(), stars: Type.Integer({ minimum: 1, maximum: 5 }), internal: Type.Optional(Type.String()) })
export const ReviewOut = MongoModelOut('DataReviewOut', { itemId: Type.String({ format: 'objectid' }), stars: Type.Integer() })

export interface DataApiTestApp {
  app: App
  store: OpenedStore
  /** POSTs `body` to `<base>/action/<action>` with the test key (unless `headers` says otherwise). */
  call(action: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number, body: Json, headers: Record<string, unknown> }>
  close(): Promise<void>
}

/** A router's options but `db`, which the harness gives (checked when the router registers). */
type RouterSetup = Record<string, unknown>

/** Opens a store, registers the routers (items and reviews by default) and the Data API, and readies the app. */
export async function dataApiApp(mode: StoreMode, options: { routers?: RouterSetup[], dataApi?: Partial<DataAPIOptions> } = {}): Promise<DataApiTestApp> {
  const store = await mode.open()
  try {
    const app = await createApp({ title: 'Data API tests', version: '1.0.0', fastify: { logger: false } })
    const routers = options.routers ?? [
      { model: Item, modelOut: ItemOut, collectionName: 'items', prefix: '/items' },
      { model: Review, modelOut: ReviewOut, collectionName: 'reviews', prefix: '/reviews' },
    ]
    for (const router of routers) await app.register(CRUDRouter, { ...router, db: store.db } as never)
    await app.register(DataAPI, { keys: [{ name: 'tests', key: KEY, claims: { sub: 'tester' } }], database: 'test', ...options.dataApi } as DataAPIOptions)
    await app.ready()
    return {
      app,
      store,
      async call(action, body, headers = { apiKey: KEY }) {
        const res = await app.inject({ method: 'POST', url: `${BASE}/action/${action}`, headers: { 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) })
        return { status: res.statusCode, body: res.body === '' ? undefined : res.json(), headers: res.headers }
      },
      async close() {
        try {
          await app.close()
        } finally {
          await store.close()
        }
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

/** The namespace every request names. */
export const ns = (collection = 'items') => ({ dataSource: 'mongodb-atlas', database: 'test', collection })
