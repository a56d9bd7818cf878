/** A minimal HTTP client for tests: form-encoded like the Python client, Basic auth. */
export interface Credentials {
  email: string;
  apiKey: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

export type ParamValue = string | number | boolean | null | object;

/** Non-string values are JSON-encoded, as Zulip's clients send them. */
export function encodeParams(params: Record<string, ParamValue | undefined>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  return form;
}

export function basicAuth(c: Credentials): string {
  return "Basic " + Buffer.from(`${c.email}:${c.apiKey}`).toString("base64");
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
  ) {}

  as(credentials: Credentials): Api {
    return new Api(this.baseUrl, credentials);
  }

  async call(
    method: string,
    route: string,
    params: Record<string, ParamValue | undefined> = {},
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const form = encodeParams(params);
    const inQuery = method === "GET";
    const url = `${this.baseUrl}/api/v1${route}${inQuery && [...form].length ? `?${form}` : ""}`;
    const h: Record<string, string> = { ...headers };
    if (this.credentials) h.authorization = basicAuth(this.credentials);
    const res = await fetch(url, { method, headers: h, body: inQuery ? undefined : form });
    const text = await res.text();
    let body: Record<string, any>;
    try {
      body = JSON.parse(text);
    } catch {
      body = { unparsed: text };
    }
    return { status: res.status, headers: res.headers, body };
  }

  get = (route: string, params?: Record<string, ParamValue | undefined>) => this.call("GET", route, params);
  post = (route: string, params?: Record<string, ParamValue | undefined>) => this.call("POST", route, params);
  patch = (route: string, params?: Record<string, ParamValue | undefined>) => this.call("PATCH", route, params);
  delete = (route: string, params?: Record<string, ParamValue | undefined>) => this.call("DELETE", route, params);
}
