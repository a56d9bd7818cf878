/** Typing notification rules that need no database. */
import { settingValue } from "./user_settings.js";

/** Zulip stops telling a channel about typing past this many subscribers, to spare the server. */
export const MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

export type TypingSetting = "send_private_typing_notifications" | "send_stream_typing_notifications" | "receives_typing_notifications";

/** The typing settings default to on (Zulip's defaults); a stored `false` turns one off. */
export function typingSettingOn(props: Record<string, unknown>, setting: TypingSetting): boolean {
  return settingValue(props, setting) !== false;
}

/** The DM participants in Zulip's order: those named, then the sender if they were not. */
export function directTypingParticipants(senderId: number, to: readonly number[]): number[] {
  return to.includes(senderId) ? [...to] : [...to, senderId];
}
