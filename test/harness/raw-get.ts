import { request } from 'node:http'

/** The raw answer over real HTTP: status, the bytes received, and how the body ended. */
export function rawGet(port: number, path: string): Promise<{ status: number, body: string, ended: 'cleanly' | 'with an error' }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = ''
      let settled = false
      const settle = (ended: 'cleanly' | 'with an error') => {
        if (settled) return
        settled = true
        resolve({ status: res.statusCode ?? 0, body, ended })
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => settle('cleanly'))
      res.on('aborted', () => settle('with an error'))
      res.on('error', () => settle('with an error'))
      res.on('close', () => settle(res.complete ? 'cleanly' : 'with an error'))
    })
    req.on('error', reject)
    req.end()
  })
}
