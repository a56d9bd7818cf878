import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { publicEndpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { ZulipError, authenticationFailed, badRequest, realmDeactivated, userDeactivated } from "../http/errors.js";
import { frozenRealm, getDefaultRealm, getRealmByStringId, type Realm } from "../store/realms.js";
import { getUserByDeliveryEmail, listUsers } from "../store/users.js";
import { isValidEmail } from "../domain/users.js";
import { verifyPassword } from "../security/credentials.js";
import { applyDecision } from "../http/rate_limit.js";
import { FEATURE_LEVEL, ZULIP_VERSION } from "../domain/limits.js";
import { renderMarkdown } from "../markdown/render.js";
import { RawJson } from "../http/raw_json.js";

/** The organization a request addresses: by subdomain when one matches, else the default one. */
export async function realmForHost(app: AppContext, request: FastifyRequest): Promise<Realm | undefined> {
  const host = (request.headers.host ?? "").split(":")[0];
  const label = host.includes(".") ? host.split(".")[0] : "";
  const found = await app.caches.hostRealms.get(label, app.db, async () => {
    const realm = (label && (await getRealmByStringId(app.db, label))) || (await getDefaultRealm(app.db));
    return { realm: realm && frozenRealm(realm) };
  });
  return found?.realm;
}

/** GET /server_settings's answer, which changes only with the organization's row (or the client's name). */
function serverSettings(app: AppContext, realm: Realm | undefined, incompatible: boolean): Record<string, unknown> {
  const dev = app.config.development;
  const settings: Record<string, unknown> = {
    authentication_methods: {
      password: true,
      dev,
      email: true,
      ldap: false,
      remoteuser: false,
      github: false,
      azuread: false,
      gitlab: false,
      apple: false,
      google: false,
      saml: false,
      "openid connect": false,
    },
    external_authentication_methods: [],
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_VERSION,
    push_notifications_enabled: false,
    is_incompatible: incompatible,
  };
  if (realm) {
    Object.assign(settings, {
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_url: app.config.externalUrl,
      realm_uri: app.config.externalUrl,
      realm_name: realm.name,
      realm_icon: `${app.config.externalUrl}/static/images/default-avatar.png`,
      realm_description: renderMarkdown(realm.description).html,
      realm_web_public_access_enabled: app.config.webPublicStreamsEnabled && realm.props.enable_spectator_access,
    });
  }
  return settings;
}

/** Answers serialized once per version of the organization's row (cached realms are shared objects). */
const settingsByRealm = new WeakMap<Realm, RawJson>();

function validateLoginEmail(username: string): string {
  const email = username.trim();
  if (!isValidEmail(email)) throw badRequest("Enter a valid email address.");
  return email;
}

/** Looks up the user for a login, with Zulip's failure codes in Zulip's order. */
async function loginUser(app: AppContext, request: FastifyRequest, email: string) {
  const realm = await realmForHost(app, request);
  if (!realm) throw new ZulipError("Invalid subdomain", "NONEXISTENT_SUBDOMAIN", 404);
  const user = await getUserByDeliveryEmail(app.db, realm.id, email);
  if (user && user.is_active !== 1) throw userDeactivated();
  if (realm.deactivated) throw realmDeactivated();
  return { realm, user };
}

/** Email and password checked as Zulip's password backend does; shared by the API and the web client's sign-in. */
export async function passwordLogin(app: AppContext, request: FastifyRequest, reply: FastifyReply, username: string, password: string) {
  const email = validateLoginEmail(username);
  // Failed attempts count against the address tried, whether or not it has an account.
  const attempts = email.toLowerCase();
  applyDecision(reply, await app.rateLimiter.check("authenticate_by_username", attempts));
  const { user } = await loginUser(app, request, email);
  // The hash is computed even without an account, so the answer's timing does not tell.
  const passwordHash = user && user.is_bot !== 1 ? user.password_hash : null;
  if (!(await verifyPassword(password, passwordHash)) || !user) {
    await app.rateLimiter.record("authenticate_by_username", attempts);
    throw authenticationFailed();
  }
  return user;
}

const apiKeyResponse = (user: { api_key: string; delivery_email: string; id: number }) => ({
  api_key: user.api_key,
  email: user.delivery_email,
  user_id: user.id,
});

export const authRoutes = [
  publicEndpoint({
    method: "GET",
    path: "/server_settings",
    params: {},
    handler: async ({ app, request, clientName }) => {
      const realm = await realmForHost(app, request);
      const incompatible = clientName === "ZulipInvalid";
      if (!realm || incompatible) return serverSettings(app, realm, incompatible);
      let settings = settingsByRealm.get(realm);
      if (!settings) {
        settings = new RawJson(JSON.stringify(serverSettings(app, realm, false)));
        settingsByRealm.set(realm, settings);
      }
      return settings;
    },
  }),

  publicEndpoint({
    method: "POST",
    path: "/fetch_api_key",
    params: { username: P.string(), password: P.string() },
    handler: async ({ app, request, reply }, { username, password }) =>
      apiKeyResponse(await passwordLogin(app, request, reply, username, password)),
  }),

  publicEndpoint({
    method: "POST",
    path: "/dev_fetch_api_key",
    guard: ({ app }) => {
      if (!app.config.development) throw badRequest("Endpoint not available in production.");
    },
    params: { username: P.string() },
    handler: async ({ app, request }, { username }) => {
      const email = validateLoginEmail(username);
      const { user } = await loginUser(app, request, email);
      if (!user) throw authenticationFailed();
      return apiKeyResponse(user);
    },
  }),

  publicEndpoint({
    method: "GET",
    path: "/dev_list_users",
    guard: ({ app }) => {
      if (!app.config.development) throw badRequest("Endpoint not available in production.");
    },
    params: {},
    handler: async ({ app, request }) => {
      const realm = await realmForHost(app, request);
      const users = realm ? await listUsers(app.db, realm.id) : [];
      const humans = users.filter((u) => u.is_active === 1 && u.is_bot === 0);
      const entry = (u: (typeof users)[number]) => ({
        email: u.delivery_email,
        realm_uri: app.config.externalUrl,
        realm_url: app.config.externalUrl,
      });
      return {
        direct_admins: humans.filter((u) => u.role <= 200).map(entry),
        direct_users: humans.filter((u) => u.role > 200).map(entry),
      };
    },
  }),
];
