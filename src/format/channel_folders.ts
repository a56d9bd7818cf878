import type { ChannelFolderRow } from "../store/channel_folders.js";

/** A channel folder as Zulip's API shows it. */
export function formatChannelFolder(row: ChannelFolderRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    rendered_description: row.rendered_description,
    order: row.order,
    date_created: Number(row.date_created),
    creator_id: row.creator_id,
    is_archived: row.is_archived === 1,
  };
}
