/** Response schemas of error bodies, shared by every route and named in the OpenAPI components. */
export const HTTPErrorSchema = {
  $id: 'HTTPError',
  type: 'object',
  description: 'An error: `detail` says what is wrong.',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
} as const

export const ValidationErrorSchema = {
  $id: 'ValidationError',
  type: 'object',
  description: 'Invalid input: a message, or one item per invalid location (FastAPI-compatible).',
  properties: {
    detail: {
      anyOf: [
        { type: 'string' },
        {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
              msg: { type: 'string' },
              type: { type: 'string' },
            },
            required: ['loc', 'msg', 'type'],
          },
        },
      ],
    },
  },
  required: ['detail'],
} as const

export const errorRef = { $ref: 'HTTPError#' } as const
export const validationErrorRef = { $ref: 'ValidationError#' } as const
