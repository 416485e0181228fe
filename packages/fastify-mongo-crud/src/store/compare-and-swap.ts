import type { Document } from './driver-db.js'
import type { Snapshot } from './store.js'

/**
 * Conditional writes (`If-Match`) as compare-and-swap: the write's own filter also requires the stored
 * document to be exactly the one the precondition was checked on, so the database checks it in the
 * same atomic operation as the change. A write that lands in between (from this router, another
 * instance or another app) makes it match nothing; there is no read-then-write window.
 *
 * Weighed against a version field written by the router (`{ _v: n }` in the filter, `$inc` in the
 * update): that costs nothing per write, but another app's write does not bump it, so a client's tag
 * would survive a change it never saw; and it adds a field to every document other apps see. The
 * comparison with the whole stored document needs no stored field and sees every writer. Its cost: the
 * filter carries a copy of the document (the command holds the copy besides the change, so a PUT whose
 * body and stored document together pass the 16 MB command limit cannot be conditional), and `$expr` is
 * evaluated on the one document the identifier (an index) selected. A hash of the document stored in it
 * would make the filter small, but other apps would not maintain it: the same flaw as a version field. `$literal` keeps stored strings such as `"$x"` from being read as
 * field paths.
 *
 * MongoDB compares documents field by field in order and numbers by value; a document that only
 * changed the order of its fields fails the comparison (a 412 the client's retry, with the same tag,
 * then passes).
 */
export function whileUnchanged(filter: Document, unchanged: Snapshot | undefined): Document {
  if (unchanged === undefined) return filter
  return { ...filter, $expr: { $eq: ['$$ROOT', { $literal: unchanged.stored }] } }
}

/**
 * The same for one item of an array of sub-documents (embeds): the array must still hold an element
 * equal to the item as read. Item ids are unique in their array (a push refuses a taken one), so that
 * element is the item. `$eq` takes its document operand as a value, never as operators.
 */
export function whileItemUnchanged(filter: Document, field: string, unchanged: Snapshot | undefined): Document {
  if (unchanged === undefined) return filter
  return { $and: [filter, { [field]: { $eq: unchanged.stored } }] }
}
