import { BlockList, isIPv6 } from 'node:net'

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/**
 * Whether `host` names this machine's loopback interface only: `localhost`, 127.0.0.0/8 or ::1
 * (any spelling, IPv4-mapped included). Any other name or address may be reachable from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true
  return loopback.check(host, isIPv6(host) ? 'ipv6' : 'ipv4')
}
