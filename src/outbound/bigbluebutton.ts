/**
 * A BigBlueButton server's API (https://docs.bigbluebutton.org/dev/api.html): every call carries
 * a SHA-256 checksum of the call's name, its query string and the shared secret.
 */
import { createHash } from "node:crypto";

export interface BigBlueButtonServer {
  /** Base URL, ending in a slash (".../bigbluebutton/"). */
  url: string;
  secret: string;
  timeoutMs: number;
}

export class BigBlueButtonError extends Error {
  constructor(readonly kind: "connect" | "checksum" | "unexpected") {
    super(kind);
  }
}

/** A query string as BigBlueButton checks it: RFC 3986 percent-encoding, spaces as %20. */
function query(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
}

function base(server: BigBlueButtonServer): string {
  return server.url.endsWith("/") ? server.url : `${server.url}/`;
}

/** The URL of an API call with its checksum. */
export function signedCall(server: BigBlueButtonServer, call: string, params: Record<string, string>): string {
  const q = query(params);
  const checksum = createHash("sha256").update(call + q + server.secret).digest("hex");
  return `${base(server)}api/${call}?${q}&checksum=${checksum}`;
}

/** The text of the first <tag> element of an XML answer; answers are small and flat. */
function element(xml: string, tag: string): string | undefined {
  const open = xml.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const close = xml.indexOf(`</${tag}>`, open);
  return close < 0 ? undefined : xml.slice(open + tag.length + 2, close).trim();
}

/** Creates (or finds) the meeting and returns its createTime, which join links must carry. */
export async function createMeeting(server: BigBlueButtonServer, params: Record<string, string>): Promise<string> {
  let body: string;
  try {
    const res = await fetch(signedCall(server, "create", params), { signal: AbortSignal.timeout(server.timeoutMs) });
    if (!res.ok) throw new BigBlueButtonError("connect");
    body = (await res.text()).slice(0, 64 * 1024);
  } catch (err) {
    if (err instanceof BigBlueButtonError) throw err;
    throw new BigBlueButtonError("connect");
  }
  if (element(body, "messageKey") === "checksumError") throw new BigBlueButtonError("checksum");
  const createTime = element(body, "createTime");
  if (element(body, "returncode") !== "SUCCESS" || !createTime) throw new BigBlueButtonError("unexpected");
  return createTime;
}
