/** Rules for channel folders that need no database. */
import { badRequest } from "../http/errors.js";
import { firstNonPrintablePosition } from "./text.js";

/** Zulip's check_channel_folder_name without the uniqueness rule; the name is kept as given. */
export function checkChannelFolderName(name: string): string {
  if (name.trim() === "") throw badRequest("Channel folder name can't be empty.");
  const position = firstNonPrintablePosition(name);
  if (position !== null) throw badRequest(`Invalid character in channel folder name, at position ${position}.`);
  return name;
}

export const channelFolderExists = (name: string) => badRequest(`Channel folder '${name}' already exists`);

/**
 * Each folder's new `order` from the requested id list: its position (the last one, should an
 * id repeat). Every folder of the organization must be listed; ids of no folder are ignored.
 */
export function folderOrderMapping(folderIds: readonly number[], order: readonly number[]): Map<number, number> {
  const position = new Map<number, number>();
  order.forEach((id, i) => position.set(id, i));
  if (folderIds.some((id) => !position.has(id))) throw badRequest("Invalid order mapping.");
  return new Map(folderIds.map((id) => [id, position.get(id)!]));
}
