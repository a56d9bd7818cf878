/** The page an email-change confirmation link opens: the change happens, or why it can't. */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.js";
import { confirmEmailChange, EmailChangeRefused } from "../../actions/user_settings.js";
import { escapeHtml, page } from "./signup.js";

export function registerEmailChangePages(server: FastifyInstance, app: AppContext): void {
  server.get<{ Params: { link: string } }>("/accounts/confirm_new_email/:link", async (request, reply) => {
    try {
      const { email, realm } = await confirmEmailChange(app, request.params.link);
      return page(reply, 200, "Email address changed", `<h1>Email address changed</h1>
<p>Your address in ${escapeHtml(realm.name)} is now <strong>${escapeHtml(email)}</strong>.</p>`);
    } catch (err) {
      if (!(err instanceof EmailChangeRefused)) throw err;
      return page(reply, 400, "Email address not changed", `<h1>Email address not changed</h1><p class="error">${escapeHtml(err.message)}</p>`);
    }
  });
}
