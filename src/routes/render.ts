import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { LIMITS } from "../domain/limits.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import { uploadImagePreviews } from "../media/thumbnails.js";

export const renderRoutes = [
  endpoint({
    method: "POST",
    path: "/messages/render",
    params: { content: P.string({ maxLength: LIMITS.maxMessageLength }) },
    handler: async ({ app, caller }, { content }) => {
      const ctx = await renderContextFor(app, caller.realm, caller.user);
      const uploads = await uploadImagePreviews(app.db, app.dialect, caller.realm.id, content);
      return { rendered: renderMarkdown(content, ctx, uploads).html };
    },
  }),
];
