/** The `channel_folders` section: every folder of the organization, archived ones included, in display order. */
import { registerStateSection, type State } from "../state.js";
import type { Event } from "../shaping.js";
import { listChannelFolders } from "../../store/channel_folders.js";
import { formatChannelFolder } from "../../format/channel_folders.js";

type Folder = Record<string, unknown>;

function applyChannelFolder(state: State, event: Event): void {
  const folders = state.channel_folders as Folder[];
  if (event.op === "add") {
    const folder = event.channel_folder as Folder;
    if (!folders.some((f) => f.id === folder.id)) folders.push(folder);
  } else if (event.op === "update") {
    const folder = folders.find((f) => f.id === event.channel_folder_id);
    if (folder) Object.assign(folder, event.data);
  } else if (event.op === "reorder") {
    (event.order as number[]).forEach((id, i) => {
      const folder = folders.find((f) => f.id === id);
      if (folder) folder.order = i;
    });
    folders.sort((a, b) => (a.order as number) - (b.order as number) || (a.id as number) - (b.id as number));
  }
}

registerStateSection({
  name: "channel_folders",
  fetchTypes: ["channel_folders"],
  eventTypes: ["channel_folder"],
  async fetch({ app, realm }) {
    return { channel_folders: (await listChannelFolders(app.db, realm.id, true)).map(formatChannelFolder) };
  },
  apply: applyChannelFolder,
});
