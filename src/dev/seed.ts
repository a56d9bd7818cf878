/**
 * The development organization: Zulip's `populate_db` test-suite data set (realm `zulip`,
 * "Zulip Dev") with a short message history. Every person can log in with DEV_PASSWORD; in development
 * mode `dev_fetch_api_key` needs no password at all.
 */
import type { AppContext } from "../context.js";
import { runAction, type Tx } from "../actions/run.js";
import { createRealmInTx } from "../actions/realms.js";
import { createUserInTx } from "../actions/users.js";
import { createStreamInTx } from "../actions/streams.js";
import { createUserGroupInTx } from "../actions/user_groups.js";
import { addSubscriptions } from "../store/subscriptions.js";
import { insertLinkifier } from "../store/linkifiers.js";
import { getRealm, type Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { Role } from "../domain/roles.js";
import { renderMarkdown } from "../markdown/render.js";
import { seedDevMessages, seedDevScheduledMessages } from "./messages.js";

/** The password of every person in the development organization. */
export const DEV_PASSWORD = "zulipdev";

/** Zulip's Realm.ORG_TYPES["business"]. */
const ORG_TYPE_BUSINESS = 10;

const PEOPLE = [
  { key: "ZOE", fullName: "Zoe", email: "ZOE@zulip.com", role: Role.MEMBER, timezone: "US/Eastern" },
  { key: "othello", fullName: "Othello, the Moor of Venice", email: "othello@zulip.com", role: Role.MEMBER, timezone: "US/Pacific" },
  { key: "iago", fullName: "Iago", email: "iago@zulip.com", role: Role.ADMINISTRATOR, timezone: "US/Eastern" },
  { key: "prospero", fullName: "Prospero from The Tempest", email: "prospero@zulip.com", role: Role.MEMBER, timezone: "" },
  { key: "cordelia", fullName: "Cordelia, Lear's daughter", email: "cordelia@zulip.com", role: Role.MEMBER, timezone: "UTC" },
  { key: "hamlet", fullName: "King Hamlet", email: "hamlet@zulip.com", role: Role.MEMBER, timezone: "" },
  { key: "AARON", fullName: "aaron", email: "AARON@zulip.com", role: Role.MEMBER, timezone: "US/Pacific" },
  { key: "polonius", fullName: "Polonius", email: "polonius@zulip.com", role: Role.GUEST, timezone: "Asia/Shanghai" },
  { key: "desdemona", fullName: "Desdemona", email: "desdemona@zulip.com", role: Role.OWNER, timezone: "Canada/Newfoundland" },
  { key: "shiva", fullName: "शिव", email: "shiva@zulip.com", role: Role.MODERATOR, timezone: "Asia/Kolkata" },
] as const;
export type DevPerson = (typeof PEOPLE)[number]["key"];

/** bot_type: 1 generic, 2 incoming webhook, 3 outgoing webhook. */
const BOTS = [
  { key: "default_bot", fullName: "Zulip Default Bot", email: "default-bot@zulip.com", botType: 1, owner: "desdemona" },
  { key: "webhook_bot", fullName: "Zulip Webhook Bot", email: "webhook-bot@zulip.com", botType: 2, owner: "ZOE" },
  { key: "outgoing_webhook_bot", fullName: "Outgoing Webhook", email: "outgoing-webhook@zulip.com", botType: 3, owner: "AARON" },
] as const;
export type DevBot = (typeof BOTS)[number]["key"];

const CHANNELS: { name: string; description: string; creator?: DevPerson; inviteOnly?: boolean; isWebPublic?: boolean; isDefault?: boolean }[] = [
  { name: "Denmark", description: "A Scandinavian country" },
  { name: "Scotland", description: "Located in the United Kingdom", creator: "iago" },
  { name: "Venice", description: "A northeastern Italian city", creator: "polonius" },
  { name: "Rome", description: "Yet another Italian city", isWebPublic: true },
  { name: "core team", description: "A private channel for core team members", inviteOnly: true, creator: "desdemona" },
  { name: "Zulip", description: "Questions and discussion about using Zulip.", isDefault: true },
  { name: "sandbox", description: "Experiment with Zulip here. :test_tube:", isDefault: true },
];

/** Zulip's deterministic test-suite subscriptions. */
const SUBSCRIPTIONS: Record<DevPerson, string[]> = {
  AARON: ["Verona"],
  cordelia: ["Verona"],
  hamlet: ["Verona", "Denmark", "core team", "Zulip", "sandbox"],
  iago: ["Verona", "Denmark", "Scotland", "core team", "Zulip", "sandbox"],
  othello: ["Verona", "Denmark", "Scotland"],
  prospero: ["Verona", "Denmark", "Scotland", "Venice"],
  ZOE: ["Verona", "Denmark", "Scotland", "Venice", "Rome"],
  polonius: ["Verona"],
  desdemona: ["Verona", "Denmark", "Venice", "core team", "Zulip", "sandbox"],
  shiva: ["Verona", "Denmark", "Scotland"],
};

const EDITOR_CHOICES = { "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } };

/** Custom profile fields (type: 1 short text, 2 long text, 3 select, 4 date, 5 URL, 6 user, 7 external account, 8 pronouns). */
const PROFILE_FIELDS = [
  { name: "Phone number", type: 1, hint: "", data: "" },
  { name: "Biography", type: 2, hint: "What are you known for?", data: "" },
  { name: "Favorite food", type: 1, hint: "Or drink, if you'd prefer", data: "" },
  { name: "Favorite editor", type: 3, hint: "", data: JSON.stringify(EDITOR_CHOICES) },
  { name: "Birthday", type: 4, hint: "", data: "" },
  { name: "Favorite website", type: 5, hint: "Or your personal blog's URL", data: "" },
  { name: "Mentor", type: 6, hint: "", data: "" },
  { name: "GitHub", type: 7, hint: "Enter your GitHub username", data: JSON.stringify({ subtype: "github" }) },
  { name: "Pronouns", type: 8, hint: "What pronouns should people use to refer to you?", data: "" },
] as const;

/** Links to pull requests of Zulip's GitHub repositories. */
const LINKIFIERS = [
  { pattern: "#D(?P<id>[0-9]{2,8})", urlTemplate: "https://github.com/zulip/zulip-desktop/pull/{id}" },
  { pattern: "zulip-mobile#(?P<id>[0-9]{2,8})", urlTemplate: "https://github.com/zulip/zulip-mobile/pull/{id}" },
  { pattern: "zulip-(?P<repo>[a-zA-Z-_0-9]+)#(?P<id>[0-9]{2,8})", urlTemplate: "https://github.com/zulip/{repo}/pull/{id}" },
];

export interface DevOrganization {
  realm: Realm;
  people: Record<DevPerson, UserRow>;
  bots: Record<DevBot, UserRow>;
  /** Channel name -> id. */
  channels: Record<string, number>;
  hamletCharactersGroupId: number;
}

/** A step run after the organization exists, in the same transaction (e.g. seeding messages). */
export type DevSeedStep = (tx: Tx, app: AppContext, org: DevOrganization) => Promise<void>;

async function addProfileFields(tx: Tx, realm: Realm, people: Record<DevPerson, UserRow>): Promise<void> {
  const ids: number[] = [];
  for (const [i, f] of PROFILE_FIELDS.entries()) {
    const { id } = await tx
      .insertInto("custom_profile_fields")
      .values({
        realm_id: realm.id,
        name: f.name,
        hint: f.hint,
        field_type: f.type,
        field_data: f.data,
        order: i + 1,
        display_in_profile_summary: 0,
        required: 0,
        editable_by_user: 1,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.push(id);
  }
  const { iago, hamlet } = people;
  const values: Record<number, string[]> = {
    [iago.id]: ["+1-234-567-8901", "Betrayer of Othello.", "Apples", "1", "2000-01-01", "https://zulip.readthedocs.io/en/latest/", `[${hamlet.id}]`, "zulip", "he/him"],
    [hamlet.id]: [
      "+0-11-23-456-7890",
      "I am:\n* The prince of Denmark\n* Nephew to the usurping Claudius",
      "Dark chocolate",
      "0",
      "1900-01-01",
      "https://blog.zulig.org",
      `[${iago.id}]`,
      "zulipbot",
      "he/him",
    ],
  };
  for (const [userId, userValues] of Object.entries(values)) {
    await tx
      .insertInto("custom_profile_values")
      .values(
        userValues.map((value, i) => ({
          user_id: Number(userId),
          field_id: ids[i],
          value,
          rendered_value: PROFILE_FIELDS[i].type <= 2 ? renderMarkdown(value).html : null,
        })),
      )
      .execute();
  }
}

/** Creates the organization, its people, bots, channels, subscriptions, group and profile data. */
export async function createDevOrganizationInTx(tx: Tx, app: AppContext): Promise<DevOrganization> {
  let realm = await createRealmInTx(tx, app, {
    stringId: "zulip",
    name: "Zulip Dev",
    description: "The Zulip development environment default organization.  It's great for testing!",
    defaultChannelName: "Verona",
    props: { invite_required: false, enable_read_receipts: true, enable_spectator_access: true, org_type: ORG_TYPE_BUSINESS },
  });
  const verona = realm.props.new_stream_announcements_stream_id;
  await tx
    .updateTable("streams")
    .set({ description: "A city in Italy", rendered_description: renderMarkdown("A city in Italy").html })
    .where("id", "=", verona)
    .execute();

  const people = {} as Record<DevPerson, UserRow>;
  for (const p of PEOPLE) {
    people[p.key] = await createUserInTx(tx, app, realm, {
      email: p.email,
      fullName: p.fullName,
      role: p.role,
      password: DEV_PASSWORD,
      timezone: p.timezone,
    });
  }
  const bots = {} as Record<DevBot, UserRow>;
  for (const b of BOTS) {
    bots[b.key] = await createUserInTx(tx, app, realm, {
      email: b.email,
      fullName: b.fullName,
      role: Role.MEMBER,
      isBot: true,
      botType: b.botType,
      botOwnerId: people[b.owner].id,
    });
  }

  const channels: Record<string, number> = { Verona: verona };
  for (const c of CHANNELS) {
    const stream = await createStreamInTx(tx, app, realm, c.creator ? people[c.creator] : null, {
      name: c.name,
      description: c.description,
      inviteOnly: c.inviteOnly,
      isWebPublic: c.isWebPublic,
      isDefault: c.isDefault,
    });
    channels[c.name] = stream.id;
  }
  const props = { ...realm.props, moderation_request_channel_id: channels["core team"] };
  await tx.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", realm.id).execute();
  realm = (await getRealm(tx, realm.id))!;

  for (const p of PEOPLE) {
    for (const name of SUBSCRIPTIONS[p.key]) await addSubscriptions(tx, channels[name], [people[p.key].id]);
  }

  const hamletCharactersGroupId = await createUserGroupInTx(tx, app, realm, {
    name: "hamletcharacters",
    description: "Characters of Hamlet",
    memberIds: [people.cordelia.id, people.hamlet.id],
    creatorId: people.cordelia.id,
  });
  await addProfileFields(tx, realm, people);
  for (const l of LINKIFIERS) await insertLinkifier(tx, realm.id, l.pattern, l.urlTemplate);
  return { realm, people, bots, channels, hamletCharactersGroupId };
}

/** Seeds the development organization in one transaction, then runs `steps` in it. */
export async function seedDevOrganization(app: AppContext, steps: DevSeedStep[] = []): Promise<DevOrganization> {
  return runAction(app, async (tx) => {
    const org = await createDevOrganizationInTx(tx, app);
    await seedDevMessages(tx, app, org);
    await seedDevScheduledMessages(tx, app, org);
    for (const step of steps) await step(tx, app, org);
    return org;
  });
}
