import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import { MAX_PYGMENTS_LANGUAGE_LENGTH } from "../domain/linkifiers.js";
import { listLinkifiers } from "../store/linkifiers.js";
import {
  doAddLinkifier,
  doAddPlayground,
  doRemoveLinkifier,
  doRemovePlayground,
  doReorderLinkifiers,
  doUpdateLinkifier,
} from "../actions/linkifiers.js";

const linkifierParams = () => ({ pattern: P.string(), url_template: P.string() });

/** Linkifiers (`/realm/filters` is their historical name) and code playgrounds. */
export const linkifierRoutes = [
  endpoint({
    method: "GET",
    path: "/realm/linkifiers",
    params: {},
    handler: async ({ app, caller }) => ({ linkifiers: await listLinkifiers(app.db, caller.realm.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/realm/filters",
    params: linkifierParams(),
    guard: requireRealmAdmin,
    handler: async ({ app, caller }, p) => ({ id: await doAddLinkifier(app, caller, p.pattern, p.url_template) }),
  }),

  endpoint({
    method: "PATCH",
    path: "/realm/filters/:filter_id(^\\d+$)",
    params: linkifierParams(),
    guard: requireRealmAdmin,
    handler: async ({ app, caller, path }, p) => {
      await doUpdateLinkifier(app, caller, path.filter_id as number, p.pattern, p.url_template);
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/filters/:filter_id(^\\d+$)",
    params: {},
    guard: requireRealmAdmin,
    handler: async ({ app, caller, path }) => {
      await doRemoveLinkifier(app, caller, path.filter_id as number);
    },
  }),

  endpoint({
    method: "PATCH",
    path: "/realm/linkifiers",
    params: { ordered_linkifier_ids: P.intList() },
    guard: requireRealmAdmin,
    handler: async ({ app, caller }, p) => {
      await doReorderLinkifiers(app, caller, p.ordered_linkifier_ids);
    },
  }),

  endpoint({
    method: "POST",
    path: "/realm/playgrounds",
    params: {
      name: P.string(),
      url_template: P.string(),
      pygments_language: P.string({ maxLength: MAX_PYGMENTS_LANGUAGE_LENGTH }),
    },
    guard: requireRealmAdmin,
    handler: async ({ app, caller }, p) => ({ id: await doAddPlayground(app, caller, p) }),
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/playgrounds/:playground_id(^\\d+$)",
    params: {},
    guard: requireRealmAdmin,
    handler: async ({ app, caller, path }) => {
      await doRemovePlayground(app, caller, path.playground_id as number);
    },
  }),
];
