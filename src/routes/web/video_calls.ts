import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.js";
import { authenticate } from "../../http/auth.js";
import { missingArgument } from "../../http/errors.js";
import { bigBlueButtonJoinUrl } from "../../actions/video_calls.js";

/**
 * The call link itself, outside the API. Zulip asks for a logged-in session; Confab has no
 * browser sessions yet, so the link takes the same credentials as the API.
 */
export function registerVideoCallPages(server: FastifyInstance, app: AppContext): void {
  server.get<{ Querystring: { bigbluebutton?: string } }>("/calls/bigbluebutton/join", async (request, reply) => {
    const caller = await authenticate(app, request);
    request.callerId = caller.user.id;
    const token = request.query.bigbluebutton;
    if (typeof token !== "string") throw missingArgument("bigbluebutton");
    return reply.redirect(await bigBlueButtonJoinUrl(app, caller, token), 302);
  });
}
