/**
 * Cached rows stay right across processes: each process announces the cached tables it writes,
 * and the others move their versions on, so their next read of those tables goes to the database.
 *
 * Announcements travel on the same Redis connection as the events a change sends, after them in
 * nothing: a process hears that a table changed before it hears the events of that change.
 */
import type { Logger } from "pino";
import type { TableVersions } from "../store/table_versions.js";
import type { RedisLink } from "./redis_link.js";

const CHANNEL = "tables";

export async function shareTableVersions(link: RedisLink, versions: TableVersions, log: Logger): Promise<void> {
  await link.listen(CHANNEL, (message) => {
    const space = message.indexOf(" ");
    if (message.slice(0, space) === link.processId) return;
    versions.bumpElsewhere(message.slice(space + 1).split(","));
  });
  versions.onBump((tables) => {
    link.publish(CHANNEL, `${link.processId} ${tables.join(",")}`).catch((err: unknown) => {
      log.error({ err, tables }, "could not tell other processes of a change to cached tables");
    });
  });
}
