import { backupDirectory } from '../index.js'
import type { BackupCommand } from './parse-args.js'

/** `fastify-mongo-crud-db backup`: copies the directory, then says where to and how large. */
export async function backupDb(command: BackupCommand, log: (line: string) => void = console.log): Promise<void> {
  const backup = await backupDirectory(command.source, command.destination, command.compact)
  log(`fastify-mongo-crud-db: backed up ${command.source} to ${backup.file} (${backup.bytes} bytes), one consistent snapshot. Serve it with --dbpath to restore it.`)
}
