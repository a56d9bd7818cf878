import { endpoint } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import { alertWordsRegisterState, doAddAlertWords, doRemoveAlertWords } from "../actions/alert_words.js";

const MAX_ALERT_WORD_LENGTH = 100;

// Zulip measures the limit in characters (code points), before surrounding whitespace is stripped.
const alertWord = (z: Zod) =>
  z.string().check((ctx) => {
    if ([...ctx.value].length > MAX_ALERT_WORD_LENGTH) {
      ctx.issues.push({ code: "too_big", origin: "string", maximum: MAX_ALERT_WORD_LENGTH, input: ctx.value });
    }
  });

export const alertWordRoutes = [
  endpoint({
    method: "GET",
    path: "/users/me/alert_words",
    params: {},
    handler: async ({ app, caller }) => alertWordsRegisterState(app.db, caller.user.id),
  }),

  endpoint({
    method: "POST",
    path: "/users/me/alert_words",
    params: { alert_words: P.json((z) => z.array(alertWord(z))) },
    handler: async ({ app, caller }, { alert_words }) => ({
      alert_words: await doAddAlertWords(app, caller, alert_words),
    }),
  }),

  endpoint({
    method: "DELETE",
    path: "/users/me/alert_words",
    params: { alert_words: P.stringList() },
    handler: async ({ app, caller }, { alert_words }) => ({
      alert_words: await doRemoveAlertWords(app, caller, alert_words),
    }),
  }),
];
