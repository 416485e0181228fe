/**
 * The key of an ObjectId in value keys (`o` and its 24-hex text, as `String(id)` spells it), as one flat
 * string. bson 7 builds that text by concatenating twelve two-character pieces, which V8 keeps as a tree
 * of a dozen string nodes (some 260 bytes where the key takes 50) for as long as the key lives: a read of
 * many ids (a populate's `$in` of thousands) kept several per id for as long as it ran. Reading one
 * character makes V8 flatten the tree, and the collector then drops its nodes. (Hex from the id's bytes
 * was as small, but cost half as much again as the key itself: GET one makes one per read.)
 */
export function objectIdKey(id: object): string {
  const key = `o${String(id)}`
  key.charCodeAt(0)
  return key
}
