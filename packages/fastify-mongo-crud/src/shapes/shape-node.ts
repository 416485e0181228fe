/**
 * What the storage and query layers need to know about a model, read once from its JSON Schema:
 * which paths hold ObjectIds, which objects are documents (their `id` is `_id` in the database),
 * and which paths exist at all (for the closed filter grammar).
 */
export type ShapeNode =
  | { kind: 'objectId' }
  /** `scalars`: the types of the values it takes besides objects, for unions such as `string | { ... }`. */
  | { kind: 'object', fields: Map<string, ShapeNode>, isDocument: boolean, open: boolean, scalars?: ReadonlySet<string> }
  | { kind: 'array', item: ShapeNode }
  | { kind: 'scalar', types: Set<string> }
  | { kind: 'any' }
