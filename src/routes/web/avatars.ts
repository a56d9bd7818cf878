/**
 * Avatar and organization image files (`/user_avatars/<realm_id>/…`), public as Zulip serves
 * them, and `/avatar/{user_id_or_email}[/medium]`, which redirects to a user's current avatar.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.js";
import { authenticate } from "../../http/auth.js";
import { unauthorized } from "../../http/errors.js";
import { readCookie, SESSION_COOKIE } from "../../http/session.js";
import { getRealmUser, getUserByAnyEmail } from "../../store/users.js";
import { canAccessUser } from "../../store/user_access.js";
import { AVATAR_FILE_NAME, MEDIUM_AVATAR_SIZE, avatarFileKey, avatarUrl, gravatarHash } from "../../media/avatars.js";
import { REALM_IMAGE_FILE, realmImageKey } from "../../media/realm_images.js";
import { realmForHost } from "../auth.js";
import { spectatorsAllowed, uploadNotFound } from "./files.js";

type Params = Record<string, string>;

async function sendImage(app: AppContext, reply: FastifyReply, key: string): Promise<FastifyReply> {
  const stored = await app.files.get(key);
  if (!stored) return uploadNotFound(reply);
  // Every URL of an image carries its version, so a URL's content never changes.
  return reply
    .status(200)
    .type("image/png")
    .header("Content-Length", String(stored.size))
    .header("Cache-Control", "public, max-age=31536000, immutable")
    .header("X-Content-Type-Options", "nosniff")
    .send(stored.stream);
}

const UNKNOWN_USER_AVATAR = "/static/images/unknown-user-avatar.png";

/** Zulip's avatar view: the URL of the user's avatar, or a Gravatar of what was asked for when there is no such user. */
async function avatarRedirect(app: AppContext, request: FastifyRequest, reply: FastifyReply, medium: boolean) {
  const wanted = (request.params as Params).email_or_id;
  const caller = request.headers.authorization || readCookie(request, SESSION_COOKIE) ? await authenticate(app, request) : null;
  const realm = caller?.realm ?? (await realmForHost(app, request));
  if (!realm || (!caller && !(await spectatorsAllowed(app, realm.id)))) {
    throw unauthorized("Not logged in: API authentication or user session required");
  }
  const user = /^\d+$/.test(wanted) ? await getRealmUser(app.db, realm.id, Number(wanted)) : await getUserByAnyEmail(app.db, realm.id, wanted);
  let url: string;
  if (!user) {
    url = `https://secure.gravatar.com/avatar/${gravatarHash(wanted)}?d=identicon${medium ? `&s=${MEDIUM_AVATAR_SIZE}` : ""}&version=1`;
  } else if (caller && !(await canAccessUser(app.db, realm, caller.user.id, user.id))) {
    url = UNKNOWN_USER_AVATAR;
  } else {
    url = avatarUrl(user, medium);
  }
  // The client's own query (a size, say) goes along, as Zulip passes it on.
  const query = request.url.split("?")[1];
  if (query) url += (url.includes("?") ? "&" : "?") + query;
  return reply.redirect(url);
}

export function registerAvatarPages(server: FastifyInstance, app: AppContext): void {
  server.get("/user_avatars/:realm_id/:file_name", async (request, reply) => {
    const { realm_id, file_name } = request.params as Params;
    if (!/^\d+$/.test(realm_id) || !AVATAR_FILE_NAME.test(file_name)) return uploadNotFound(reply);
    return sendImage(app, reply, avatarFileKey(Number(realm_id), file_name));
  });
  server.get("/user_avatars/:realm_id/realm/:file_name", async (request, reply) => {
    const { realm_id, file_name } = request.params as Params;
    const match = REALM_IMAGE_FILE.exec(file_name);
    if (!/^\d+$/.test(realm_id) || !match) return uploadNotFound(reply);
    return sendImage(app, reply, realmImageKey(Number(realm_id), match[1] as "icon" | "logo" | "night_logo"));
  });
  server.get("/avatar/:email_or_id", (request, reply) => avatarRedirect(app, request, reply, false));
  server.get("/avatar/:email_or_id/medium", (request, reply) => avatarRedirect(app, request, reply, true));
}
