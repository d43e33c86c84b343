/**
 * Which resolved addresses an alert webhook may reach: public unicast only. Loopback, private,
 * link-local, carrier-grade NAT, multicast, reserved and unspecified addresses (IPv4, IPv6 and
 * IPv4-mapped IPv6) are refused, so a subscriber cannot make skymarket post into its own network.
 * Pure: the caller resolves the name.
 */

function v4Parts(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const nums = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return nums.every((n) => n >= 0 && n <= 255) ? nums : null;
}

function v4Blocked([a, b]: number[]): boolean {
  return (
    a === 0 || // this network
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! < 128) || // carrier-grade NAT
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! < 32) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments, TEST-NET-1 (192.0.2)
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a! >= 224 // multicast, reserved, broadcast
  );
}

/** The 8 groups of an IPv6 address, null when it is not one. */
function v6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = v4Parts(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  let groups = halves.length === 2 ? [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest] : head;
  if (tail.length) groups = [...groups.slice(0, groups.length - 2), ...tail];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

/** True when a webhook must not be posted to `ip` (or `ip` is not an address at all). */
export function isBlockedAddress(ip: string): boolean {
  const v4 = v4Parts(ip);
  if (v4) return v4Blocked(v4);
  const g = v6Groups(ip);
  if (!g) return true;
  const [a] = g as [number];
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judged as the IPv4 address
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return v4Blocked([g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]);
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (a === 0x0064 && g[1] === 0xff9b) return true; // NAT64 (reaches IPv4 behind it)
  return false;
}
