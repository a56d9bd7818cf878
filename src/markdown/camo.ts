/**
 * Images and videos from other sites are loaded through a camo proxy, so that viewing a message
 * does not reveal the reader to the site. The proxy URL carries an HMAC of the original URL.
 */
import { createHmac } from "node:crypto";

export interface CamoConfig {
  /** Base URL of the proxy, e.g. https://external-content.zulipcdn.net/external_content/ */
  url: string;
  key: string;
}

export function camoUrl(camo: CamoConfig, url: string): string {
  const digest = createHmac("sha1", camo.key).update(url).digest("hex");
  const base = camo.url.endsWith("/") ? camo.url : camo.url + "/";
  return `${base}${digest}/${Buffer.from(url, "utf8").toString("hex")}`;
}
