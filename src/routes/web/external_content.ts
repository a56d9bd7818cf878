import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.js";
import { camoKey, proxyMedia, verifiedUrl } from "../../media/image_proxy.js";

/**
 * Zulip's camo path: `/external_content/<hmac-sha1 hex>/<url as hex>`. No login is asked for,
 * as with camo: the signature is what grants the fetch, and only the renderer makes signatures.
 */
export function registerExternalContent(server: FastifyInstance, app: AppContext): void {
  // The URL part is a wildcard: path parameters are capped at 1,000 characters, and image URLs
  // (signed storage links above all) can be longer than half that.
  server.get<{ Params: { digest: string; "*": string } }>("/external_content/:digest/*", async (request, reply) => {
    const checked = verifiedUrl(camoKey(app), request.params.digest, request.params["*"]);
    if (checked === "malformed") return reply.status(404).type("text/plain; charset=utf-8").send("Not found");
    if (checked === "bad_signature") return reply.status(403).type("text/plain; charset=utf-8").send("Bad signature");
    const outcome = await proxyMedia(app, checked.url, request.headers);
    if (outcome.kind === "refused") {
      if (outcome.status === 503) reply.header("retry-after", "1");
      return reply.status(outcome.status).type("text/plain; charset=utf-8").header("cache-control", "no-store").send(outcome.text);
    }
    reply.status(outcome.status).headers(outcome.headers);
    return outcome.body ? reply.send(outcome.body) : reply.send();
  });
}
