/**
 * BigBlueButton calls as Zulip makes them: creating a call only signs a join link naming the
 * meeting and its moderator; following the link creates the meeting on the BigBlueButton server
 * and sends the person on to it, as moderator if they made the call.
 */
import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { BigBlueButtonError, createMeeting, signedCall, type BigBlueButtonServer } from "../outbound/bigbluebutton.js";

interface MeetingTicket {
  meeting_id: string;
  name: string;
  lock_settings_disable_cam: boolean;
  moderator: number;
}

function server(app: AppContext): BigBlueButtonServer {
  const { bigBlueButtonUrl: url, bigBlueButtonSecret: secret, bigBlueButtonTimeoutMs: timeoutMs } = app.config;
  if (!url || !secret) throw badRequest("BigBlueButton is not configured.");
  return { url, secret, timeoutMs };
}

// Links are signed with a key derived from the shared secret, so only this server's links are honored.
function signature(bbb: BigBlueButtonServer, payload: string): Buffer {
  return createHmac("sha256", `confab bigbluebutton links\0${bbb.secret}`).update(payload).digest();
}

function sign(bbb: BigBlueButtonServer, ticket: MeetingTicket): string {
  const payload = Buffer.from(JSON.stringify(ticket)).toString("base64url");
  return `${payload}.${signature(bbb, payload).toString("base64url")}`;
}

function unsign(bbb: BigBlueButtonServer, token: string): MeetingTicket {
  const [payload, sig, extra] = token.split(".");
  const given = Buffer.from(sig ?? "", "base64url");
  const expected = signature(bbb, payload ?? "");
  if (extra !== undefined || !payload || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw badRequest("Invalid signature.");
  }
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as MeetingTicket;
}

export function bigBlueButtonCallUrl(app: AppContext, caller: Caller, meetingName: string, voiceOnly: boolean): string {
  const bbb = server(app);
  const ticket: MeetingTicket = {
    meeting_id: `zulip-${randomInt(100000000000, 999999999999)}`,
    name: meetingName,
    lock_settings_disable_cam: voiceOnly,
    moderator: caller.user.id,
  };
  return `/calls/bigbluebutton/join?bigbluebutton=${encodeURIComponent(sign(bbb, ticket))}`;
}

const FAILURES: Record<BigBlueButtonError["kind"], string> = {
  connect: "Error connecting to the BigBlueButton server.",
  checksum: "Error authenticating to the BigBlueButton server.",
  unexpected: "BigBlueButton server returned an unexpected error.",
};

/** Where the person following a call link goes: the meeting, on the BigBlueButton server. */
export async function bigBlueButtonJoinUrl(app: AppContext, caller: Caller, token: string): Promise<string> {
  const bbb = server(app);
  const ticket = unsign(bbb, token);
  let createTime: string;
  try {
    createTime = await createMeeting(bbb, {
      meetingID: ticket.meeting_id,
      name: ticket.name,
      lockSettingsDisableCam: String(ticket.lock_settings_disable_cam),
    });
  } catch (err) {
    if (err instanceof BigBlueButtonError) throw badRequest(FAILURES[err.kind]);
    throw err;
  }
  return signedCall(bbb, "join", {
    meetingID: ticket.meeting_id,
    role: ticket.moderator === caller.user.id ? "MODERATOR" : "VIEWER",
    fullName: caller.user.full_name,
    createTime,
  });
}
