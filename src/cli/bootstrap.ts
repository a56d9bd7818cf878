import { randomBytes } from "node:crypto";
import type { AppContext } from "../context.js";
import { createRealmInTx } from "../actions/realms.js";
import { createUserInTx, subscribeToDefaultChannels } from "../actions/users.js";
import { runAction } from "../actions/run.js";
import { Role } from "../domain/roles.js";
import { zuliprcText } from "./zuliprc.js";

/**
 * On the first start with an empty database, creates an organization and its owner so a
 * Zulip client, or a browser at /login/ with the printed password, can connect at once. Returns nothing when an organization already exists.
 * `keep` receives the owner's zuliprc before anything is committed: if it cannot keep it (an
 * unwritable data directory), nothing is created and the next start tries again, rather than
 * leaving an organization whose owner's key was never shown.
 */
export async function bootstrapFirstRealm(app: AppContext, keep: (zuliprc: string) => void = () => {}) {
  const existing = await app.db.selectFrom("realms").select("id").limit(1).executeTakeFirst();
  if (existing) return undefined;
  return runAction(app, async (tx) => {
    const realm = await createRealmInTx(tx, app, {
      stringId: "",
      name: process.env.CONFAB_REALM_NAME ?? "Confab",
      description: "A Zulip-compatible organization served by Confab.",
    });
    const password = process.env.CONFAB_OWNER_PASSWORD || randomBytes(12).toString("base64url");
    const owner = await createUserInTx(tx, app, realm, {
      email: process.env.CONFAB_OWNER_EMAIL ?? "owner@example.com",
      fullName: "Organization Owner",
      role: Role.OWNER,
      password,
    });
    await subscribeToDefaultChannels(tx, realm.id, owner.id);
    const zuliprc = zuliprcText(owner.delivery_email, owner.api_key, app.config.externalUrl);
    keep(zuliprc);
    return { realm, owner, password, zuliprc };
  });
}
