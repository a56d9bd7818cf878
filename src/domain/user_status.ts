/** How a `user_status` event changes the register-time map of statuses (only non-default fields kept). */
export type StatusMap = Record<string, Record<string, unknown>>;

export function applyUserStatusEvent(all: StatusMap, event: Record<string, unknown>): void {
  const key = String(event.user_id);
  const status = { ...all[key] };
  if (event.away === true) status.away = true;
  if (event.away === false) delete status.away;
  if (typeof event.status_text === "string") {
    if (event.status_text) status.status_text = event.status_text;
    else delete status.status_text;
  }
  if (typeof event.emoji_name === "string") {
    for (const field of ["emoji_name", "emoji_code", "reaction_type"]) {
      if (event.emoji_name) status[field] = event[field];
      else delete status[field];
    }
  }
  if (Object.keys(status).length) all[key] = status;
  else delete all[key];
}
