/**
 * Peer (e): express-restify-mongoose, the REST CRUD a mongoose user generates from a model, on Express 4
 * with mongoose 8 (and the driver mongoose brings, mongodb 6) against the engine's wire server at
 * BENCH_WIRE_URI, database BENCH_DB. Its defaults: lean documents, PATCH through findOneAndUpdate, a
 * schema of the five fields (no validation beyond mongoose's casts), `__v` left out. Its own query
 * grammar (`sort`, `query` as JSON): http-throughput.ts sends it the same workloads in that grammar.
 * `POST /__bench/index` creates the index on `age`. Prints `LISTENING <url>` once ready.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { serve } from 'express-restify-mongoose'
import mongoose from 'mongoose'

await mongoose.connect(process.env['BENCH_WIRE_URI']!, { dbName: process.env['BENCH_DB'] ?? 'erm', maxPoolSize: 50 })
const User = mongoose.model('User', new mongoose.Schema({ name: String, email: String, age: Number, city: String, created_at: String }, { versionKey: false, collection: 'users' }))

const app = express()
app.use(express.json())
serve(app, User as unknown as mongoose.Model<unknown>, { name: 'users' })
app.post('/__bench/index', (_request, response, next) => {
  User.collection
    .createIndex({ age: 1 })
    .then((indexed) => response.json({ indexed }))
    .catch(next)
})

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`LISTENING http://127.0.0.1:${port}`)
})
