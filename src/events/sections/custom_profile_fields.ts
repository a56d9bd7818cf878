/** The `custom_profile_fields` section: the organization's profile fields and the field types. */
import { registerStateSection } from "../state.js";
import { listCustomProfileFields } from "../../store/custom_profile.js";

const FIELD_TYPES: Record<string, { id: number; name: string }> = {
  SHORT_TEXT: { id: 1, name: "Text (short)" },
  LONG_TEXT: { id: 2, name: "Text (long)" },
  SELECT: { id: 3, name: "List of options" },
  DATE: { id: 4, name: "Date" },
  URL: { id: 5, name: "Link" },
  USER: { id: 6, name: "Users" },
  EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
  PRONOUNS: { id: 8, name: "Pronouns" },
};

registerStateSection({
  name: "custom_profile_fields",
  fetchTypes: ["custom_profile_fields"],
  eventTypes: ["custom_profile_fields"],
  async fetch({ app, realm }) {
    const fields = await listCustomProfileFields(app.db, realm.id);
    return {
      custom_profile_fields: fields.map((f) => ({
        id: f.id,
        name: f.name,
        type: f.field_type,
        hint: f.hint,
        field_data: f.field_data,
        order: f.order,
        required: f.required === 1,
        editable_by_user: f.editable_by_user === 1,
        ...(f.display_in_profile_summary === 1 ? { display_in_profile_summary: true } : {}),
      })),
      custom_profile_field_types: FIELD_TYPES,
    };
  },
  apply(state, event) {
    state.custom_profile_fields = event.fields;
  },
});
