import type { EndpointDef } from "../http/endpoint.js";
import { authRoutes } from "./auth.js";
import { settingsRoutes } from "./settings.js";
import { userRoutes } from "./users.js";
import { streamRoutes } from "./streams.js";
import { subscriptionRoutes } from "./subscriptions.js";
import { messageRoutes } from "./messages.js";
import { draftRoutes } from "./drafts.js";
import { savedSnippetRoutes } from "./saved_snippets.js";
import { alertWordRoutes } from "./alert_words.js";
import { userGroupRoutes } from "./user_groups.js";
import { renderRoutes } from "./render.js";
import { eventRoutes } from "./events.js";
import { presenceRoutes } from "./presence.js";
import { pushRoutes } from "./push.js";
import { inviteRoutes } from "./invites.js";
import { onboardingRoutes } from "./onboarding.js";
import { linkifierRoutes } from "./linkifiers.js";
import { channelAdminRoutes } from "./channel_admin.js";
import { messageEditRoutes } from "./message_edit.js";
import { channelFolderRoutes } from "./channel_folders.js";
import { realmRoutes } from "./realm.js";
import { scheduledMessageRoutes } from "./scheduled_messages.js";
import { realmExportRoutes } from "./realm_export.js";
import { videoCallRoutes } from "./video_calls.js";
import { topicRoutes } from "./topics.js";
import { navigationViewRoutes } from "./navigation_views.js";
import { messageReportRoutes } from "./message_report.js";
import { reminderRoutes } from "./reminders.js";
import { messageFlagRoutes } from "./message_flags.js";
import { uploadRoutes } from "./uploads.js";
import { realmEmojiRoutes } from "./realm_emoji.js";
import { subscriptionSettingRoutes } from "./subscription_settings.js";
import { mutedUserRoutes } from "./muted_users.js";
import { reactionRoutes } from "./reactions.js";
import { typingRoutes } from "./typing.js";
import { userStatusRoutes } from "./user_status.js";
import { webhookRoutes } from "./webhooks.js";
import { botRoutes } from "./bots.js";
import { botStorageRoutes } from "./bot_storage.js";
import { submessageRoutes } from "./submessages.js";
import { avatarRoutes } from "./avatars.js";

/** Every API endpoint; each resource family lives in its own file. */
export const ALL_ENDPOINTS: EndpointDef[] = [
  ...authRoutes,
  ...settingsRoutes,
  ...userRoutes,
  ...userGroupRoutes,
  ...streamRoutes,
  ...subscriptionRoutes,
  ...messageRoutes,
  ...draftRoutes,
  ...savedSnippetRoutes,
  ...alertWordRoutes,
  ...renderRoutes,
  ...eventRoutes,
  ...presenceRoutes,
  ...pushRoutes,
  ...inviteRoutes,
  ...onboardingRoutes,
  ...linkifierRoutes,
  ...channelAdminRoutes,
  ...messageEditRoutes,
  ...channelFolderRoutes,
  ...realmRoutes,
  ...scheduledMessageRoutes,
  ...realmExportRoutes,
  ...videoCallRoutes,
  ...topicRoutes,
  ...navigationViewRoutes,
  ...messageReportRoutes,
  ...reminderRoutes,
  ...messageFlagRoutes,
  ...uploadRoutes,
  ...realmEmojiRoutes,
  ...subscriptionSettingRoutes,
  ...mutedUserRoutes,
  ...reactionRoutes,
  ...typingRoutes,
  ...userStatusRoutes,
  ...webhookRoutes,
  ...botRoutes,
  ...botStorageRoutes,
  ...submessageRoutes,
  ...avatarRoutes,
];
