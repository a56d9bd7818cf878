import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.js";
import { authenticate } from "../../http/auth.js";
import { missingArgument } from "../../http/errors.js";
import { bigBlueButtonJoinUrl } from "../../actions/video_calls.js";

/**
 * The call link itself, outside the API: opened from the web client it rides on the browser
 * session, as in Zulip; other clients can open it with their API credentials.
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
