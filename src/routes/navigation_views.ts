import { endpoint, type AuthedContext } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { NAVIGATION_VIEW_LIMITS } from "../domain/navigation_views.js";
import {
  doAddNavigationView,
  doRemoveNavigationView,
  doUpdateNavigationView,
  getNavigationViews,
} from "../actions/navigation_views.js";

const fragmentParam = () => P.string({ nonBlank: true, maxLength: NAVIGATION_VIEW_LIMITS.fragmentMaxLength });
const nameParam = () => P.string({ nonBlank: true, maxLength: NAVIGATION_VIEW_LIMITS.nameMaxLength }).optional();

/** Fragments contain slashes (`narrow/is/starred`), sent encoded or not; the rest of the path is the fragment. */
function pathFragment({ path }: AuthedContext): string {
  return String(path["*"]).trim();
}

export const navigationViewRoutes = [
  endpoint({
    method: "GET",
    path: "/navigation_views",
    params: {},
    handler: async ({ app, caller }) => ({ navigation_views: await getNavigationViews(app.db, caller.user.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/navigation_views",
    params: { fragment: fragmentParam(), is_pinned: P.bool(), name: nameParam() },
    handler: async ({ app, caller }, p) => {
      await doAddNavigationView(app, caller, p.fragment, p.is_pinned, p.name);
    },
  }),

  endpoint({
    method: "PATCH",
    path: "/navigation_views/*",
    params: { is_pinned: P.bool().optional(), name: nameParam() },
    handler: async (ctx, p) => {
      await doUpdateNavigationView(ctx.app, ctx.caller, pathFragment(ctx), { isPinned: p.is_pinned, name: p.name });
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/navigation_views/*",
    params: {},
    handler: async (ctx) => {
      await doRemoveNavigationView(ctx.app, ctx.caller, pathFragment(ctx));
    },
  }),
];
