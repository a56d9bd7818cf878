import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { MAX_REPORT_DESCRIPTION_LENGTH, REPORT_TYPES } from "../domain/message_report.js";
import { doReportMessage } from "../actions/message_report.js";

export const messageReportRoutes = [
  endpoint({
    method: "POST",
    path: "/messages/:message_id(^\\d+)/report",
    params: {
      report_type: P.oneOf(REPORT_TYPES),
      description: P.string({ maxLength: MAX_REPORT_DESCRIPTION_LENGTH }).default(""),
    },
    handler: async ({ app, caller, path }, p) => {
      await doReportMessage(app, caller, path.message_id as number, p.report_type, p.description);
    },
  }),
];
