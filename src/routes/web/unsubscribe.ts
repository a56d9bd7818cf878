/**
 * The page a one-click unsubscribe link opens (Zulip's /accounts/unsubscribe/{type}/{token}): the
 * setting behind that kind of email is turned off, with the usual settings events. POST does the
 * same, for mail programs that unsubscribe by themselves (RFC 8058's List-Unsubscribe-Post).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.js";
import { doUpdateSettings } from "../../actions/user_settings.js";
import { getRealm } from "../../store/realms.js";
import { isUnsubscribeType, unsubscribeTokenUser, UNSUBSCRIBE_SETTINGS } from "../../notifications/unsubscribe.js";
import { escapeHtml, page } from "./signup.js";

/** What each kind of email is called on the page. */
const EMAIL_KINDS = {
  missed_messages: "message notification emails",
  digest: "digest emails",
  login: "new login emails",
  marketing: "marketing emails",
} as const;

type UnsubscribeRequest = FastifyRequest<{ Params: { type: string; token: string } }>;

export function registerUnsubscribePages(server: FastifyInstance, app: AppContext): void {
  const handler = async (request: UnsubscribeRequest, reply: FastifyReply) => {
    const { type, token } = request.params;
    if (!isUnsubscribeType(type)) return page(reply, 404, "Unknown email type", "<h1>Unknown email type</h1>");
    const userId = unsubscribeTokenUser(app, type, token);
    const user = userId === null ? undefined : await app.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
    const realm = user && (await getRealm(app.db, user.realm_id));
    if (!user || !realm || user.is_active !== 1 || realm.deactivated) {
      return page(reply, 400, "Unknown unsubscribe request", `<h1>Unknown email unsubscribe request</h1><p class="error">This link is not valid.</p>`);
    }
    await doUpdateSettings(app, { user, realm, clientName: "website" }, { settings: { [UNSUBSCRIBE_SETTINGS[type]]: false } });
    return page(
      reply,
      200,
      "Unsubscribed",
      `<h1>You have been unsubscribed</h1><p>${escapeHtml(user.delivery_email)} will no longer get ${EMAIL_KINDS[type]} from ${escapeHtml(realm.name)}.
You can turn them on again in your notification settings.</p>`,
    );
  };
  server.get("/accounts/unsubscribe/:type/:token", handler);
  server.post("/accounts/unsubscribe/:type/:token", handler);
}
