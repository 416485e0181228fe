/**
 * The benchmark's users: name, email, age 18..80, city, created_at, the shape and value ranges of the
 * cross-system load harness's data set. Deterministic for a seed, so every system is seeded with the same
 * documents.
 */
import { seededRandom } from '../test/harness/seeded-random.ts'

export interface BenchUser {
  name: string
  email: string
  age: number
  city: string
  created_at: string
}

const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Ken', 'Dennis', 'Barbara', 'Edsger', 'Donald', 'Margaret']
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Thompson', 'Ritchie', 'Liskov', 'Dijkstra', 'Knuth', 'Hamilton']
export const CITIES = ['Paris', 'Berlin', 'Madrid', 'Rome', 'Lisbon', 'Vienna', 'Prague', 'Warsaw', 'Oslo', 'Helsinki']

export function generateUsers(count: number, seed = 42): BenchUser[] {
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const start = Date.UTC(2020, 0, 1)
  const users: BenchUser[] = []
  for (let i = 1; i <= count; i++) {
    const first = pick(FIRST)
    const last = pick(LAST)
    users.push({
      name: `${first} ${last}`,
      email: `${first}.${last}${i}@example.com`.toLowerCase(),
      age: 18 + Math.floor(random() * 63),
      city: pick(CITIES),
      created_at: new Date(start + i * 3_600_000 + Math.floor(random() * 3_600_000)).toISOString(),
    })
  }
  return users
}
