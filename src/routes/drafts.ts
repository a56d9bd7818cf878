import type { z } from "zod";
import { endpoint, type AuthedContext } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import { checkDraftsSynchronized, doCreateDrafts, doDeleteDraft, doEditDraft, getDrafts } from "../actions/drafts.js";

// Zulip types the timestamp `int | float | None`; a wrong type is reported against the union's
// first member, whose name appears in the location.
const timestamp = (z: Zod) =>
  z.unknown().check((ctx) => {
    if (ctx.value === null || ctx.value === undefined || typeof ctx.value === "number") return;
    ctx.issues.push({ code: "invalid_type", expected: "int", path: ["int"], input: ctx.value });
  }) as z.ZodType<number | null | undefined>;

const draftShape = (z: Zod) =>
  z.strictObject({
    type: z.enum(["", "stream", "private"]),
    to: z.array(z.int()),
    topic: z.string(),
    content: z.string().trim().min(1),
    timestamp: timestamp(z).optional(),
  });

const synchronizing = ({ caller }: AuthedContext) => checkDraftsSynchronized(caller.user);

export const draftRoutes = [
  endpoint({
    method: "GET",
    path: "/drafts",
    guard: synchronizing,
    params: {},
    handler: async ({ app, caller }) => {
      const drafts = await getDrafts(app, caller);
      return { count: drafts.length, drafts };
    },
  }),

  endpoint({
    method: "POST",
    path: "/drafts",
    guard: synchronizing,
    params: { drafts: P.json((z) => z.array(draftShape(z))) },
    handler: async ({ app, caller }, { drafts }) => ({ ids: await doCreateDrafts(app, caller, drafts) }),
  }),

  endpoint({
    method: "PATCH",
    path: "/drafts/:draft_id(^\\d+$)",
    guard: synchronizing,
    params: { draft: P.json(draftShape) },
    handler: async ({ app, caller, path }, { draft }) => {
      await doEditDraft(app, caller, path.draft_id as number, draft);
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/drafts/:draft_id(^\\d+$)",
    guard: synchronizing,
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteDraft(app, caller, path.draft_id as number);
    },
  }),
];
