/**
 * A test organization with one user of every role, plus a second organization, created through
 * the same actions the server uses.
 */
import type { AppContext } from "../../src/context.js";
import { runAction } from "../../src/actions/run.js";
import { createRealmInTx } from "../../src/actions/realms.js";
import { createUserInTx } from "../../src/actions/users.js";
import { Role } from "../../src/domain/roles.js";
import type { Credentials } from "./client.js";
import type { Realm } from "../../src/store/realms.js";

export interface TestUser extends Credentials {
  id: number;
  role: number;
  fullName: string;
}

export interface TestRealm {
  realm: Realm;
  owner: TestUser;
  admin: TestUser;
  moderator: TestUser;
  member: TestUser;
  member2: TestUser;
  guest: TestUser;
  bot: TestUser;
}

export const TEST_PASSWORD = "correct horse battery staple";

export async function createTestRealm(app: AppContext, stringId = "zulip"): Promise<TestRealm> {
  return runAction(app, async (tx) => {
    const realm = await createRealmInTx(tx, app, { stringId, name: `Test ${stringId}` });
    const make = async (local: string, fullName: string, role: number, extra: { isBot?: boolean; botOwnerId?: number } = {}) => {
      const u = await createUserInTx(tx, app, realm, {
        email: `${local}@${stringId}.example.com`,
        fullName,
        role,
        password: extra.isBot ? undefined : TEST_PASSWORD,
        ...extra,
      });
      return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role, fullName };
    };
    const owner = await make("owner", "Olivia Owner", Role.OWNER);
    return {
      realm,
      owner,
      admin: await make("admin", "Adam Admin", Role.ADMINISTRATOR),
      moderator: await make("moderator", "Mona Moderator", Role.MODERATOR),
      member: await make("member", "Mel Member", Role.MEMBER),
      member2: await make("member2", "Max Member", Role.MEMBER),
      guest: await make("guest", "Gus Guest", Role.GUEST),
      bot: await make("bot", "Bob Bot", Role.MEMBER, { isBot: true, botOwnerId: owner.id }),
    };
  });
}
