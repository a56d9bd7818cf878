/**
 * The pages an invitation link opens, outside the API: /join/<key>/ shows a sign-up form (or,
 * for a reusable link, asks for an email address) and takes its submission. Plain HTML rendered
 * on the server; everything that comes from users is escaped.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { countAttempt } from "../../http/rate_limit.js";
import { startSession } from "../../http/session.js";
import type { AppContext } from "../../context.js";
import { ZulipError } from "../../http/errors.js";
import {
  JoinUnavailable,
  ROLE_NAMES,
  lookupJoinKey,
  registerFromInvitation,
  requestRegistrationByLink,
  type JoinTarget,
  type Unavailable,
} from "../../actions/signup.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const STYLE = `body{font-family:system-ui,sans-serif;background:#f5f5f7;color:#1d1d1f;margin:0}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .3rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;background:#1e5bb8;color:#fff;border:0;border-radius:4px}
.error{color:#b00020}`;

export function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  return reply
    .status(status)
    .headers({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    })
    .send(html);
}

const errorLine = (error: string | undefined) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "");

function registrationForm(reply: FastifyReply, target: Extract<JoinTarget, { kind: "invitation" }>, form: { fullName?: string; error?: string }) {
  const { realm, invite } = target;
  return page(
    reply,
    form.error ? 400 : 200,
    `Join ${realm.name}`,
    `<h1>Join ${escapeHtml(realm.name)}</h1>
<p>You were invited to join as ${escapeHtml(ROLE_NAMES[invite.invited_as] ?? "member")} with the address <strong>${escapeHtml(invite.email)}</strong>.</p>
${errorLine(form.error)}
<form method="post">
<label for="full_name">Full name</label>
<input id="full_name" name="full_name" required autocomplete="name" value="${escapeHtml(form.fullName ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="new-password">
<button type="submit">Create account</button>
</form>`,
  );
}

function emailForm(reply: FastifyReply, target: Extract<JoinTarget, { kind: "link" }>, form: { email?: string; error?: string }) {
  const { realm } = target;
  return page(
    reply,
    form.error ? 400 : 200,
    `Join ${realm.name}`,
    `<h1>Join ${escapeHtml(realm.name)}</h1>
<p>Enter your email address. We will send you a link to finish signing up.</p>
${errorLine(form.error)}
<form method="post">
<label for="email">Email address</label>
<input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(form.email ?? "")}">
<button type="submit">Continue</button>
</form>`,
  );
}

const UNAVAILABLE: Record<Unavailable, { status: number; title: string; text: string }> = {
  not_found: {
    status: 404,
    title: "Invitation not found",
    text: "This invitation link is not valid. Check that you copied the whole link, or ask for a new invitation.",
  },
  expired: {
    status: 410,
    title: "This invitation has expired",
    text: "Ask the person who invited you, or an administrator of the organization, for a new invitation.",
  },
  revoked: {
    status: 410,
    title: "This invitation was revoked",
    text: "It can no longer be used. Ask an administrator of the organization if you still want to join.",
  },
  used: {
    status: 410,
    title: "This invitation has already been used",
    text: "An account was already created with it. Sign in with that account's email address and password.",
  },
};

function unavailablePage(reply: FastifyReply, err: JoinUnavailable) {
  const { status, title, text } = UNAVAILABLE[err.reason];
  const where = err.realm ? `<p>Organization: ${escapeHtml(err.realm.name)}</p>` : "";
  return page(reply, status, title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n${where}`);
}

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

export function registerSignupPages(server: FastifyInstance, app: AppContext): void {
  server.get<{ Params: { key: string } }>("/join/:key", async (request, reply) => {
    try {
      const target = await lookupJoinKey(app, request.params.key);
      return target.kind === "invitation" ? registrationForm(reply, target, {}) : emailForm(reply, target, {});
    } catch (err) {
      if (err instanceof JoinUnavailable) return unavailablePage(reply, err);
      throw err;
    }
  });

  server.post<{ Params: { key: string } }>("/join/:key", async (request, reply) => {
    const { key } = request.params;
    let target: JoinTarget;
    try {
      target = await lookupJoinKey(app, key);
    } catch (err) {
      if (err instanceof JoinUnavailable) return unavailablePage(reply, err);
      throw err;
    }
    if (target.kind === "link") {
      const email = field(request.body, "email");
      try {
        await countAttempt(app, "sends_email_by_ip", request.ip);
        const { realm } = await requestRegistrationByLink(app, key, email);
        return page(
          reply,
          200,
          "Check your email",
          `<h1>Check your email</h1>\n<p>We sent a link to <strong>${escapeHtml(email.trim())}</strong> to finish joining ${escapeHtml(realm.name)}.</p>`,
        );
      } catch (err) {
        if (err instanceof JoinUnavailable) return unavailablePage(reply, err);
        if (err instanceof ZulipError) return emailForm(reply, target, { email, error: err.msg });
        throw err;
      }
    }
    const fullName = field(request.body, "full_name");
    try {
      const { realm, user } = await registerFromInvitation(app, key, { fullName, password: field(request.body, "password") });
      // The new account is signed in to the web client at once.
      await startSession(app, reply, user.id);
      return page(
        reply,
        200,
        `Welcome to ${realm.name}`,
        `<h1>Welcome, ${escapeHtml(user.full_name)}!</h1>
<p>Your account <strong>${escapeHtml(user.delivery_email)}</strong> in ${escapeHtml(realm.name)} is ready.</p>
<p><a href="/">Open ${escapeHtml(realm.name)}</a> — you are signed in.</p>
<p>Sign in from any Zulip app at <strong>${escapeHtml(app.config.externalUrl)}</strong> with your email address and password.</p>`,
      );
    } catch (err) {
      if (err instanceof JoinUnavailable) return unavailablePage(reply, err);
      if (err instanceof ZulipError) return registrationForm(reply, target, { fullName, error: err.msg });
      throw err;
    }
  });
}
