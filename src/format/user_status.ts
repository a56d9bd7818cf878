/** How a user's status is shown: only what differs from the defaults. */
import type { StatusRow } from "../store/user_status.js";

export function formatUserStatus(row: StatusRow | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!row) return out;
  // `away` is the deprecated inverse of the presence_enabled setting.
  if (row.presence_enabled === 0) out.away = true;
  if (row.status_text) out.status_text = row.status_text;
  if (row.emoji_name) Object.assign(out, { emoji_name: row.emoji_name, emoji_code: row.emoji_code, reaction_type: row.reaction_type });
  return out;
}
