import type { CustomProfileFieldRow } from "../store/custom_profile_fields.js";

/** A custom profile field as Zulip's API shows it (display_in_profile_summary only when set). */
export function formatCustomProfileField(f: CustomProfileFieldRow): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    type: f.field_type,
    hint: f.hint,
    field_data: f.field_data,
    order: f.order,
    required: f.required === 1,
    editable_by_user: f.editable_by_user === 1,
    ...(f.display_in_profile_summary === 1 ? { display_in_profile_summary: true } : {}),
  };
}
