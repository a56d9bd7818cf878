/**
 * Calls to Confab's public /api/v1, authenticated by the browser session: the session cookie
 * goes by itself, and every write repeats the CSRF token from the `csrftoken` cookie.
 */
export type Params = Record<string, string | number | boolean | null | unknown[] | Record<string, unknown> | undefined>;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function csrfToken(): string {
  const match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : "";
}

function encode(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out.set(k, v !== null && typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return out;
}

/** Sent when the session is gone: the page goes back to the sign-in form. */
function signedOut() {
  window.location.assign("/login/");
}

export async function api<T = Record<string, unknown>>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  params: Params = {},
  opts: { signal?: AbortSignal; body?: FormData } = {},
): Promise<T> {
  let url = `/api/v1${path}`;
  const init: RequestInit = { method, credentials: "same-origin", signal: opts.signal, headers: {} };
  if (method === "GET") {
    const q = encode(params).toString();
    if (q) url += `?${q}`;
  } else {
    (init.headers as Record<string, string>)["X-CSRFToken"] = csrfToken();
    init.body = opts.body ?? encode(params);
  }
  const res = await fetch(url, init);
  let body: Record<string, unknown>;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(`HTTP ${res.status}`, "BAD_RESPONSE", res.status, {});
  }
  if (res.status === 401) signedOut();
  if (body.result !== "success") {
    throw new ApiError(String(body.msg ?? `HTTP ${res.status}`), String(body.code ?? "BAD_REQUEST"), res.status, body);
  }
  return body as T;
}

export async function logout(): Promise<void> {
  await fetch("/logout", { method: "POST", headers: { "X-CSRFToken": csrfToken() }, credentials: "same-origin" });
  window.location.assign("/login/");
}
