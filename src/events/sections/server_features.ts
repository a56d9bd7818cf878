/**
 * Register keys for server features Confab does not offer (onboarding tours, organization
 * domains, default channel groups, billing, GIPHY, Zoom): present with Zulip's "nothing
 * configured" values, so that clients parsing them find what a plain Zulip server sends.
 */
import { registerStateSection } from "../state.js";
import { STOP_WORDS } from "../../domain/stop_words.js";

const FIXED: [string, Record<string, unknown>][] = [
  // Confab has no web app tutorial: Zulip sends no steps when its tutorial is disabled, and no
  // video URL when the navigation tour video is.
  ["onboarding_steps", { onboarding_steps: [], navigation_tour_video_url: null }],
  ["realm_domains", { realm_domains: [] }],
  ["default_stream_groups", { realm_default_stream_groups: [] }],
  ["stop_words", { stop_words: STOP_WORDS }],
  // No billing customer exists on a self-hosted server, so Zulip sends an empty object.
  ["realm_billing", { realm_billing: {} }],
  ["giphy", { giphy_api_key: "" }],
  ["video_calls", { has_zoom_token: false }],
];

for (const [type, keys] of FIXED) {
  registerStateSection({ name: type, fetchTypes: [type], fetch: async () => structuredClone(keys) });
}
