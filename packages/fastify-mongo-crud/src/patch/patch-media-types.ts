/**
 * The request media types of every PATCH (docs/patch.md): the keys sent are set (`application/json`,
 * as before), an RFC 7396 merge patch, or an RFC 6902 JSON Patch. Any other type is 415.
 */
export const PATCH_MEDIA_TYPES = {
  json: 'application/json',
  merge: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
} as const

export type PatchMediaType = (typeof PATCH_MEDIA_TYPES)[keyof typeof PATCH_MEDIA_TYPES]

const KNOWN: ReadonlySet<string> = new Set(Object.values(PATCH_MEDIA_TYPES))

/** The media type a `Content-Type` (or a batch operation's `contentType`) names, its parameters dropped; undefined for any other. */
export function patchMediaType(contentType: string | undefined): PatchMediaType | undefined {
  const essence = (contentType ?? PATCH_MEDIA_TYPES.json).split(';')[0]!.trim().toLowerCase()
  return KNOWN.has(essence) ? (essence as PatchMediaType) : undefined
}

/**
 * The body of a PATCH route: by its media type, the route's own partial model (`application/json`),
 * or a merge patch or JSON Patch document (what they make is checked against the model).
 */
export function patchBodySchema(json: object) {
  return {
    content: {
      [PATCH_MEDIA_TYPES.json]: { schema: json },
      [PATCH_MEDIA_TYPES.merge]: { schema: MERGE_PATCH_SCHEMA },
      [PATCH_MEDIA_TYPES.jsonPatch]: { schema: JSON_PATCH_SCHEMA },
    },
  }
}

/** What the route checks of a merge patch: an object. The document it makes is checked against the model. */
export const MERGE_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  description: 'An RFC 7396 JSON Merge Patch: a key set to null is removed, an object merges into the field, anything else (arrays too) replaces it',
}

const pointer = { type: 'string', description: 'An RFC 6901 JSON Pointer to a field of the model (`/address/city`, `/tags/0`, `/tags/-`)' }

/** What the route checks of a JSON Patch: its operations' shape. The document it makes is checked against the model. */
export const JSON_PATCH_SCHEMA = {
  type: 'array',
  description: 'An RFC 6902 JSON Patch: operations applied in order, all or none',
  items: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
      path: pointer,
      from: { ...pointer, description: 'move and copy: where the value comes from' },
      value: { description: 'add, replace and test: the value' },
    },
    required: ['op', 'path'],
    additionalProperties: false,
  },
}
