/** Adding and removing emoji reactions. */
import type { AppContext } from "../context.js";
import type { UserRow } from "../store/users.js";
import type { MessageRow } from "../store/messages.js";
import { ensureUserMessage, messageAudience } from "../store/messages.js";
import { deleteReaction, existingReactionName, hasReaction, insertReaction, type ReactionKey } from "../store/reactions.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { accessMessage } from "./messages.js";
import { checkEmoji, emojiForName } from "./emoji.js";
import { badRequest, ZulipError } from "../http/errors.js";

export interface ReactionRequest {
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

async function announce(tx: Tx, events: PendingEvents, user: UserRow, message: MessageRow, op: "add" | "remove", emojiName: string, key: ReactionKey) {
  events.send({
    realmId: user.realm_id,
    event: {
      type: "reaction",
      op,
      user_id: user.id,
      user: { user_id: user.id, email: user.email, full_name: user.full_name },
      message_id: message.id,
      emoji_name: emojiName,
      emoji_code: key.emoji_code,
      reaction_type: key.reaction_type,
    },
    userIds: [...(await messageAudience(tx, message))].sort((a, b) => a - b),
  });
}

/** POST /messages/{message_id}/reactions. */
export async function addReaction(app: AppContext, user: UserRow, messageId: number, req: ReactionRequest & { emojiName: string }) {
  return runAction(app, async (tx, events) => {
    const { message } = await accessMessage(app, tx, user, messageId);
    let { emojiCode, reactionType } = req;
    if (emojiCode === undefined || reactionType === undefined) {
      const named = await emojiForName(tx, user.realm_id, req.emojiName);
      emojiCode ??= named.emoji_code;
      reactionType ??= named.reaction_type;
    }
    const key = { message_id: message.id, user_id: user.id, emoji_code: emojiCode, reaction_type: reactionType };
    if (await hasReaction(tx, key)) throw new ZulipError("Reaction already exists.", "REACTION_ALREADY_EXISTS", 400);
    // Joining a reaction others made keeps their name, even for an emoji no longer valid (a
    // deactivated custom one), so one emoji never shows up twice under different names.
    let emojiName = await existingReactionName(tx, message.id, emojiCode, reactionType);
    if (emojiName === undefined) {
      emojiName = req.emojiName;
      await checkEmoji(tx, user.realm_id, { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType });
    }
    await ensureUserMessage(tx, user.id, message.id);
    await insertReaction(tx, key, emojiName);
    await announce(tx, events, user, message, "add", emojiName, key);
  });
}

/** DELETE /messages/{message_id}/reactions: the emoji need not be valid any more, only the reaction present. */
export async function removeReaction(app: AppContext, user: UserRow, messageId: number, req: ReactionRequest) {
  return runAction(app, async (tx, events) => {
    const { message } = await accessMessage(app, tx, user, messageId);
    let emojiCode = req.emojiCode;
    if (emojiCode === undefined) {
      if (req.emojiName === undefined) {
        throw badRequest("At least one of the following arguments must be present: emoji_name, emoji_code");
      }
      emojiCode = (await emojiForName(tx, user.realm_id, req.emojiName)).emoji_code;
    }
    const key = { message_id: message.id, user_id: user.id, emoji_code: emojiCode, reaction_type: req.reactionType ?? "unicode_emoji" };
    const emojiName = await deleteReaction(tx, key);
    if (emojiName === undefined) throw new ZulipError("Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST", 400);
    await announce(tx, events, user, message, "remove", emojiName, key);
  });
}
