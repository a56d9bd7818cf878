/** The `custom_profile_fields` section: the organization's profile fields and the field types. */
import { registerStateSection } from "../state.js";
import { listCustomProfileFields } from "../../store/custom_profile_fields.js";
import { formatCustomProfileField } from "../../format/custom_profile_fields.js";
import { FIELD_TYPES } from "../../domain/custom_profile_fields.js";

registerStateSection({
  name: "custom_profile_fields",
  fetchTypes: ["custom_profile_fields"],
  eventTypes: ["custom_profile_fields"],
  async fetch({ app, realm }) {
    const fields = await listCustomProfileFields(app.db, realm.id);
    return { custom_profile_fields: fields.map(formatCustomProfileField), custom_profile_field_types: FIELD_TYPES };
  },
  apply(state, event) {
    state.custom_profile_fields = event.fields;
  },
});
