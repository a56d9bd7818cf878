/** The `navigation_views` section: the user's configured sidebar views. */
import { registerStateSection } from "../state.js";
import { getNavigationViews } from "../../actions/navigation_views.js";
import type { ApiNavigationView } from "../../domain/navigation_views.js";

registerStateSection({
  name: "navigation_views",
  fetchTypes: ["navigation_views"],
  eventTypes: ["navigation_view"],
  fetch: async ({ app, user }) => ({ navigation_views: await getNavigationViews(app.db, user.id) }),
  apply(state, event) {
    const list = state.navigation_views as ApiNavigationView[];
    const others = list.filter((v) => v.fragment !== (event.op === "add" ? (event.navigation_view as ApiNavigationView).fragment : event.fragment));
    if (event.op === "add") state.navigation_views = [...others, event.navigation_view];
    else if (event.op === "update") {
      state.navigation_views = list.map((v) => (v.fragment === event.fragment ? { ...v, ...(event.data as object) } : v));
    } else state.navigation_views = others;
  },
});
