import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { LIMITS } from "../domain/limits.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import { listLinkifiers } from "../store/linkifiers.js";

export const renderRoutes = [
  endpoint({
    method: "POST",
    path: "/messages/render",
    params: { content: P.string({ maxLength: LIMITS.maxMessageLength }) },
    handler: async ({ app, caller }, { content }) => {
      const ctx = await renderContextFor(app, caller.realm, caller.user, await listLinkifiers(app.db, caller.realm.id));
      return { rendered: renderMarkdown(content, ctx).html };
    },
  }),
];
