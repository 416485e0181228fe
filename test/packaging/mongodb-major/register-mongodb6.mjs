// `node --import ./register-mongodb6.mjs`: installs resolve-mongodb6.mjs before the first import.
import { register } from 'node:module'

register('./resolve-mongodb6.mjs', import.meta.url)
