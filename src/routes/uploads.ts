import { endpoint } from "../http/endpoint.js";
import { filesOf } from "../files/multipart.js";
import { doDeleteAttachment, doUploadFile, listAttachments, mayReadUpload, temporaryUploadUrl } from "../actions/uploads.js";
import { uploadForbidden, uploadNotFound } from "./web/files.js";

export const uploadRoutes = [
  endpoint({
    method: "POST",
    path: "/user_uploads",
    params: {},
    handler: async ({ app, caller, request }) => {
      const { url, filename } = await doUploadFile(app, caller, filesOf(request));
      // `uri` is the name clients before feature level 272 read.
      return { uri: url, url, filename };
    },
  }),

  endpoint({
    method: "GET",
    path: "/user_uploads/:realm_id_str/*",
    params: {},
    handler: async ({ app, caller, request, reply }) => {
      const params = request.params as Record<string, string>;
      const pathId = `${params.realm_id_str}/${params["*"]}`;
      const access = await mayReadUpload(app.db, caller.user, pathId, async () => false);
      // As Zulip does, refusals are the same pages the file URL itself gives.
      if (!access) return void (await uploadNotFound(reply));
      if (!access.allowed) return void (await uploadForbidden(reply));
      return { url: temporaryUploadUrl(app, access.attachment.path_id) };
    },
  }),

  endpoint({
    method: "GET",
    path: "/attachments",
    params: {},
    handler: async ({ app, caller }) => listAttachments(app.db, caller),
  }),

  endpoint({
    method: "DELETE",
    path: "/attachments/:attachment_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteAttachment(app, caller, path.attachment_id as number);
    },
  }),
];
