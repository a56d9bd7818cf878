import { endpoint } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import type { z } from "zod";
import { requireMemberOrAdmin } from "../http/guards.js";
import { ROLE_CODES } from "../domain/roles.js";
import { isUrl } from "../domain/custom_profile_fields.js";
import { BotType } from "../domain/bots.js";
import { badRequest } from "../http/errors.js";
import { doCreateBot, doDeactivateBot, doRegenerateBotApiKey, doUpdateBot, ownBotsForApi } from "../actions/bots.js";
import { filesOf } from "../files/multipart.js";

const BOT = "/bots/:bot_id(^\\d+$)";

const roleSchema = (z: Zod) =>
  z.union(ROLE_CODES.map((code) => z.literal(code)) as unknown as [z.ZodLiteral<number>, z.ZodLiteral<number>]);
const configSchema = (z: Zod) => z.record(z.string(), z.string());

/** Zulip sends URLs JSON-encoded here and checks them with check_url once decoded. */
const urlParam = () => P.json((z) => z.string());
const checkUrl = (value: string | undefined, name: string) => {
  if (value !== undefined && !isUrl(value)) throw badRequest(`${name} is not a URL`);
  return value;
};

export const botRoutes = [
  endpoint({
    method: "GET",
    path: "/bots",
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller }) => ({ bots: await ownBotsForApi(app, caller) }),
  }),

  endpoint({
    method: "POST",
    path: "/bots",
    guard: requireMemberOrAdmin,
    params: {
      full_name: P.string(),
      short_name: P.string(),
      bot_type: P.int().default(BotType.GENERIC),
      payload_url: urlParam().default(""),
      service_name: P.string().optional(),
      config_data: P.json(configSchema).default({}),
      interface_type: P.int().default(1),
      default_sending_stream: P.string().optional(),
      default_events_register_stream: P.string().optional(),
      default_all_public_streams: P.bool().optional(),
    },
    handler: async ({ app, caller, request }, p) =>
      doCreateBot(app, caller, {
        fullName: p.full_name,
        shortName: p.short_name,
        botType: p.bot_type,
        payloadUrl: p.payload_url === "" ? "" : checkUrl(p.payload_url, "payload_url")!,
        serviceName: p.service_name,
        interfaceType: p.interface_type,
        configData: p.config_data,
        defaultSendingStream: p.default_sending_stream,
        defaultEventsRegisterStream: p.default_events_register_stream,
        defaultAllPublicStreams: p.default_all_public_streams,
        avatarFiles: filesOf(request),
      }),
  }),

  endpoint({
    method: "PATCH",
    path: BOT,
    guard: requireMemberOrAdmin,
    params: {
      full_name: P.string().optional(),
      role: P.json(roleSchema).optional(),
      bot_owner_id: P.int().optional(),
      config_data: P.json(configSchema).optional(),
      service_payload_url: urlParam().optional(),
      service_interface: P.int().default(1),
      default_sending_stream: P.string().optional(),
      default_events_register_stream: P.string().optional(),
      default_all_public_streams: P.bool().optional(),
    },
    handler: async ({ app, caller, path, request }, p) =>
      doUpdateBot(app, caller, path.bot_id as number, {
        fullName: p.full_name,
        role: p.role,
        botOwnerId: p.bot_owner_id,
        configData: p.config_data,
        servicePayloadUrl: checkUrl(p.service_payload_url, "service_payload_url"),
        serviceInterface: p.service_interface,
        defaultSendingStream: p.default_sending_stream,
        defaultEventsRegisterStream: p.default_events_register_stream,
        defaultAllPublicStreams: p.default_all_public_streams,
        avatarFiles: filesOf(request),
      }),
  }),

  endpoint({
    method: "DELETE",
    path: BOT,
    params: {},
    handler: async ({ app, caller, path }) => doDeactivateBot(app, caller, path.bot_id as number),
  }),

  endpoint({
    method: "POST",
    path: `${BOT}/api_key/regenerate`,
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller, path }) => doRegenerateBotApiKey(app, caller, path.bot_id as number),
  }),
];
