import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { badRequest } from "../http/errors.js";
import { requireRealmAdmin } from "../http/guards.js";
import { doDeleteRealmExport, doExportRealm, getExportConsents, getRealmExports } from "../actions/realm_export.js";
import { ExportType, isExportType } from "../domain/realm_export.js";

export const realmExportRoutes = [
  endpoint({
    method: "POST",
    path: "/export/realm",
    guard: requireRealmAdmin,
    params: { export_type: P.int().default(ExportType.PUBLIC) },
    handler: async ({ app, caller }, { export_type }) => {
      if (!isExportType(export_type)) throw badRequest("Invalid export_type");
      return { id: await doExportRealm(app, caller, export_type) };
    },
  }),

  endpoint({
    method: "GET",
    path: "/export/realm",
    guard: requireRealmAdmin,
    params: {},
    handler: async ({ app, caller }) => ({ exports: await getRealmExports(app, caller) }),
  }),

  endpoint({
    method: "DELETE",
    path: "/export/realm/:export_id(^\\d+$)",
    guard: requireRealmAdmin,
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteRealmExport(app, caller, path.export_id as number);
    },
  }),

  endpoint({
    method: "GET",
    path: "/export/realm/consents",
    guard: requireRealmAdmin,
    params: {},
    handler: async ({ app, caller }) => ({ export_consents: await getExportConsents(app, caller) }),
  }),
];
