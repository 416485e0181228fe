/**
 * `npm run bench`: every benchmark, each reporting ratios against a baseline run side by side.
 * Numbers are medians; these machines are noisy, so compare ratios, not absolute values.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchThroughput } from './http-throughput.ts'

await benchThroughput()
const memory = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./list-memory.ts', import.meta.url))], { stdio: 'inherit' })
if (memory.status !== 0) process.exitCode = 1
