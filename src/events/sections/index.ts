// Every module that contributes to the POST /register initial state; each registers itself.
import "./realm.js";
import "./realm_user.js";
import "./presence.js";
import "./messages.js";
import "./custom_profile_fields.js";
import "./user_settings.js";
import "./channels.js";
import "./user_groups.js";
import "./personal.js";
import "./push_devices.js";
import "./linkifiers.js";
import "./channel_folders.js";
import "./scheduled_messages.js";
import "./user_status.js";
