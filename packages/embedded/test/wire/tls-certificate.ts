import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with openssl at test time: its key and
 * certificate in one PEM file (what --tlsCertificateKeyFile takes), and the certificate alone (the CA
 * a client trusts). With `password`, the key is encrypted with it.
 */
export async function selfSignedCertificate(dir: string, password?: string): Promise<{ keyFile: string, caFile: string }> {
  const name = password === undefined ? 'server' : 'encrypted'
  const key = join(dir, `${name}-key.pem`)
  const caFile = join(dir, `${name}-ca.pem`)
  const encryption = password === undefined ? ['-nodes'] : ['-passout', `pass:${password}`]
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', ...encryption, '-keyout', key, '-out', caFile, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' })
  const keyFile = join(dir, `${name}.pem`)
  await writeFile(keyFile, Buffer.concat([await readFile(key), await readFile(caFile)]))
  return { keyFile, caFile }
}
