/** Which emoji a reaction or a status may name: Unicode, the organization's custom ones, `zulip`. */
import type { Executor } from "../store/schema.js";
import { findActiveRealmEmoji, getRealmEmoji } from "../store/realm_emoji.js";
import { emojiCodeForName, emojiNameForCode } from "../markdown/emoji.js";
import { badRequest } from "../http/errors.js";

export type ReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";

export interface Emoji {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** The emoji a bare name means now: a custom emoji first, then `zulip`, then Unicode. */
export async function emojiForName(db: Executor, realmId: number, name: string): Promise<{ emoji_code: string; reaction_type: ReactionType }> {
  const custom = await findActiveRealmEmoji(db, realmId, name);
  if (custom) return { emoji_code: String(custom.id), reaction_type: "realm_emoji" };
  if (name === "zulip") return { emoji_code: "zulip", reaction_type: "zulip_extra_emoji" };
  const code = emojiCodeForName(name);
  if (code !== undefined) return { emoji_code: code, reaction_type: "unicode_emoji" };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Refuses a name, code and type that don't name one usable emoji of this organization. */
export async function checkEmoji(db: Executor, realmId: number, emoji: Emoji): Promise<void> {
  const { emoji_name: name, emoji_code: code } = emoji;
  switch (emoji.reaction_type) {
    case "realm_emoji": {
      const custom = /^\d+$/.test(code) ? await getRealmEmoji(db, realmId, Number(code)) : undefined;
      if (!custom) throw badRequest("Invalid custom emoji.");
      if (custom.name !== name) throw badRequest("Invalid custom emoji name.");
      if (custom.deactivated) throw badRequest("This custom emoji has been deactivated.");
      return;
    }
    case "zulip_extra_emoji":
      if (code !== "zulip") throw badRequest("Invalid emoji code.");
      if (name !== code) throw badRequest("Invalid emoji name.");
      return;
    case "unicode_emoji":
      if (emojiNameForCode(code) === undefined) throw badRequest("Invalid emoji code.");
      if (emojiCodeForName(name) !== code) throw badRequest("Invalid emoji name.");
      return;
    default:
      throw badRequest("Invalid emoji type.");
  }
}
