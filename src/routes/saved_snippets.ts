import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { LIMITS } from "../domain/limits.js";
import {
  doCreateSavedSnippet,
  doDeleteSavedSnippet,
  doEditSavedSnippet,
  getSavedSnippets,
} from "../actions/saved_snippets.js";

const MAX_TITLE_LENGTH = 60;

const title = () => P.string({ nonBlank: true, maxLength: MAX_TITLE_LENGTH });
const content = () => P.string({ nonBlank: true, maxLength: LIMITS.maxMessageLength });

export const savedSnippetRoutes = [
  endpoint({
    method: "GET",
    path: "/saved_snippets",
    params: {},
    handler: async ({ app, caller }) => ({ saved_snippets: await getSavedSnippets(app.db, caller.user.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/saved_snippets",
    params: { title: title(), content: content() },
    handler: async ({ app, caller }, p) => ({
      saved_snippet_id: await doCreateSavedSnippet(app, caller, p.title, p.content),
    }),
  }),

  endpoint({
    method: "PATCH",
    path: "/saved_snippets/:saved_snippet_id(^\\d+$)",
    params: { title: title().optional(), content: content().optional() },
    handler: async ({ app, caller, path }, changes) => {
      await doEditSavedSnippet(app, caller, path.saved_snippet_id as number, changes);
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/saved_snippets/:saved_snippet_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteSavedSnippet(app, caller, path.saved_snippet_id as number);
    },
  }),
];
