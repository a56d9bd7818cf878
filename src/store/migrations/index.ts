import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import * as m001 from "./001_initial.js";
import * as m002 from "./002_presence.js";
import * as m003 from "./003_personal_tools.js";
import * as m004 from "./004_linkifiers_playgrounds.js";
import * as m005 from "./005_scheduled_messages.js";
import * as m006 from "./006_channel_admin.js";
import * as m007 from "./007_org_admin.js";
import * as m008 from "./008_invites.js";
import * as m009 from "./009_push_devices.js";
import * as m010 from "./010_realm_emoji.js";
import * as m013 from "./013_attachments.js";
import * as m014 from "./014_reactions_status.js";
import * as m015 from "./015_user_topics.js";
import * as m016 from "./016_muted_users_channel_emails.js";
import * as m018 from "./018_misc.js";
import * as m019 from "./019_realm_exports.js";
import * as m020 from "./020_bigint_columns.js";
import * as m021 from "./021_unique_names.js";
import * as m022 from "./022_read_indexes.js";
import * as m023 from "./023_subscriber_indexes.js";
import * as m024 from "./024_web_sessions.js";
import * as m025 from "./025_private_message_index.js";
import * as m026 from "./026_channel_activity_index.js";
import * as m027 from "./027_outbox.js";
import * as m028 from "./028_unread_index_flags.js";
import * as m029 from "./029_bot_index.js";
import * as m030 from "./030_message_versions.js";
import * as m031 from "./031_bots.js";
import * as m032 from "./032_submessages.js";
import * as m033 from "./033_image_attachments.js";
import * as m034 from "./034_avatars.js";
import * as m035 from "./035_link_previews.js";
import * as m036 from "./036_message_emails.js";
import * as m037 from "./037_email_gateway.js";
import * as m038 from "./038_imports.js";
import * as m039 from "./039_search_index.js";

type MigrationUp = (db: Kysely<any>, dialect: Dialect) => Promise<void>;

/** Every migration, in order. A new migration is a new file added to the end of this list. */
export const MIGRATIONS: [string, MigrationUp][] = [
  ["001_initial", m001.up],
  ["002_presence", m002.up],
  ["003_personal_tools", m003.up],
  ["004_linkifiers_playgrounds", m004.up],
  ["005_scheduled_messages", m005.up],
  ["006_channel_admin", m006.up],
  ["007_org_admin", m007.up],
  ["008_invites", m008.up],
  ["009_push_devices", m009.up],
  ["010_realm_emoji", m010.up],
  ["013_attachments", m013.up],
  ["014_reactions_status", m014.up],
  ["015_user_topics", m015.up],
  ["016_muted_users_channel_emails", m016.up],
  ["018_misc", m018.up],
  ["019_realm_exports", m019.up],
  ["020_bigint_columns", m020.up],
  ["021_unique_names", m021.up],
  ["022_read_indexes", m022.up],
  ["023_subscriber_indexes", m023.up],
  ["024_web_sessions", m024.up],
  ["025_private_message_index", m025.up],
  ["026_channel_activity_index", m026.up],
  ["027_outbox", m027.up],
  ["028_unread_index_flags", m028.up],
  ["029_bot_index", m029.up],
  ["030_message_versions", m030.up],
  ["031_bots", m031.up],
  ["032_submessages", m032.up],
  ["033_image_attachments", m033.up],
  ["034_avatars", m034.up],
  ["035_link_previews", m035.up],
  ["036_message_emails", m036.up],
  ["037_email_gateway", m037.up],
  ["038_imports", m038.up],
  ["039_search_index", m039.up],
];
