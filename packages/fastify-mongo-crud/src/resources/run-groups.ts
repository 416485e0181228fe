import { inexactSum, tooManyGroups } from '../errors.js'
import type { Filter } from '../query/filter.js'
import type { GroupQuery, GroupRow, GroupsQueryString } from '../query/group-query.js'
import { type GroupSpec, type ParsedGroups, parseGroupQuery } from '../query/parse-group-query.js'
import type { WireDoc } from '../store/store.js'

/**
 * The one `_groups` operation of every kind of resource: the request parsed against the kind's fields,
 * its filter made by the kind (the list's, under its scope and parent), the groups read by one
 * aggregation, and each group answered as `{ <by field>: value, <metric>: value }`.
 */
export async function runGroups(
  spec: GroupSpec,
  raw: GroupsQueryString,
  filterOf: () => Promise<Filter | undefined>,
  read: (query: GroupQuery) => Promise<GroupRow[]>
): Promise<WireDoc[]> {
  const parsed = parseGroupQuery(raw, spec)
  const rows = await read({ ...parsed.query, filter: await filterOf() })
  // Without a limit, one group past maxGroups was read: there are more than an answer may hold.
  if (parsed.unbounded && rows.length > spec.maxGroups) throw tooManyGroups(spec.maxGroups)
  return rows.map((row) => answerOf(row, parsed))
}

function answerOf(row: GroupRow, parsed: ParsedGroups): WireDoc {
  const answer: WireDoc = {}
  parsed.names.by.forEach((name, i) => {
    answer[name] = row.keys[i]
  })
  parsed.names.metrics.forEach((name, i) => {
    const magnitude = row.magnitudes[i]
    // Past 2^53 a sum of integers may have been rounded (in a double) or come back as a 64-bit integer
    // (which no JSON number holds exactly): refused either way, on every store alike.
    if (magnitude !== undefined && !(typeof magnitude === 'number' && magnitude <= Number.MAX_SAFE_INTEGER)) throw inexactSum(name)
    // Any metric (a minimum or maximum of Longs included) that no JSON number holds: refused, never sent as text.
    if (row.inexact[i]) throw inexactSum(name)
    answer[name] = row.values[i]
  })
  return answer
}
