/**
 * Finished organization exports are downloaded from an unguessable address outside the API, as
 * Zulip serves them, so administrators can hand the link to a browser or curl.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.js";
import { findExportArchive } from "../../actions/realm_export.js";

export function registerExportDownloads(server: FastifyInstance, app: AppContext): void {
  server.get<{ Params: { realm: string; token: string; file: string } }>(
    "/user_avatars/exports/:realm/:token/:file",
    async (request, reply) => {
      const { realm, token, file } = request.params;
      const archive = await findExportArchive(app, ["exports", realm, token, file].join("/"));
      if (!archive || !fs.existsSync(archive)) {
        return reply.status(404).type("application/json").send(JSON.stringify({ result: "error", msg: "Not Found", code: "BAD_REQUEST" }) + "\n");
      }
      return reply
        .type("application/gzip")
        .header("Content-Disposition", `attachment; filename="${path.basename(archive)}"`)
        .send(fs.createReadStream(archive));
    },
  );
}
