/**
 * Which network addresses the server may connect to when a user names the URL (outgoing
 * webhooks, and later image proxying and link previews): public unicast addresses only, so a
 * URL cannot reach the server's own machine, its private network or a cloud metadata service.
 * Networks the operator lists are allowed whatever they are (a bot server on the intranet; tests).
 */
import { BlockList, isIP, isIPv4 } from "node:net";

/** Ranges that are not the public Internet (RFC 6890 and its successors), metadata services included. */
const NON_PUBLIC_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT; Alibaba's metadata service sits at 100.100.100.200
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local; the usual metadata address 169.254.169.254
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
];
const NON_PUBLIC_V6 = [
  "::/127", // unspecified and loopback
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "fc00::/7", // unique local; AWS's metadata service answers at fd00:ec2::254
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
];

const nonPublic = new BlockList();
for (const range of NON_PUBLIC_V4) addRange(nonPublic, range);
for (const range of NON_PUBLIC_V6) addRange(nonPublic, range);

function addRange(list: BlockList, cidr: string): void {
  const [address, bits] = cidr.split("/");
  const type = isIPv4(address) ? "ipv4" : "ipv6";
  list.addSubnet(address, Number(bits ?? (type === "ipv4" ? 32 : 128)), type);
}

/**
 * The IPv4 address an IPv6 address carries and that routers would deliver to: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
export function embeddedIPv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const words = expandIPv6(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || words[5] === 0) && (words[6] !== 0 || words[7] > 1)) {
    return v4(words[6], words[7]);
  }
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return v4(words[6], words[7]);
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split(".").map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((w) => parseInt(w, 16));
}

export class AddressPolicy {
  private readonly allowed = new BlockList();

  /** `allowedNetworks`: CIDR ranges or single addresses allowed even though they are not public. */
  constructor(allowedNetworks: readonly string[] = []) {
    for (const network of allowedNetworks) {
      const [address] = network.split("/");
      if (!isIP(address)) throw new Error(`not an address or CIDR range: ${network}`);
      addRange(this.allowed, network);
    }
  }

  allows(address: string): boolean {
    const family = isIP(address);
    if (!family) return false;
    const type = family === 4 ? "ipv4" : "ipv6";
    if (this.allowed.check(address, type)) return true;
    if (nonPublic.check(address, type)) return false;
    const v4 = embeddedIPv4(address);
    return v4 === undefined || this.allows(v4);
  }
}
