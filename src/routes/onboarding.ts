import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import { MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH } from "../domain/invites.js";
import { sendTestWelcomeMessage } from "../actions/onboarding.js";

export const onboardingRoutes = [
  endpoint({
    method: "POST",
    path: "/realm/test_welcome_bot_custom_message",
    guard: requireRealmAdmin,
    params: { welcome_message_custom_text: P.string({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }) },
    handler: async ({ app, caller }, p) => ({
      message_id: await sendTestWelcomeMessage(app, caller, p.welcome_message_custom_text),
    }),
  }),
];
