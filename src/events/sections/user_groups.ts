/** The `realm_user_groups` section: named groups, system groups included. */
import { registerStateSection } from "../state.js";
import { listUserGroups } from "../../actions/user_groups.js";

registerStateSection({
  name: "realm_user_groups",
  fetchTypes: ["realm_user_groups"],
  eventTypes: ["user_group"],
  async fetch({ app, realm, options }) {
    const includeDeactivated = options.capabilities.include_deactivated_groups === true;
    return { realm_user_groups: await listUserGroups(app, realm.id, includeDeactivated) };
  },
});
