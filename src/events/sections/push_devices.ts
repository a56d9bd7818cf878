/** The caller's end-to-end encrypted push devices and their registration status. */
import { registerStateSection } from "../state.js";
import { pushDevicesRegisterState } from "../../actions/push_devices.js";

type PushDevices = Record<string, { status: string; error_code: string | null }>;

registerStateSection({
  name: "push_devices",
  fetchTypes: ["push_device"],
  eventTypes: ["push_device"],
  fetch: ({ app, user }) => pushDevicesRegisterState(app.db, user.id),
  apply(state, event) {
    const devices = state.push_devices as PushDevices;
    devices[String(event.push_account_id)] = {
      status: String(event.status),
      error_code: (event.error_code as string | null | undefined) ?? null,
    };
  },
});
