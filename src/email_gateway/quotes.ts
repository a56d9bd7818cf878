/**
 * What of a mail's text becomes the message: the quoted earlier mail and the signature are
 * left out, the subject loses its Re:/Fwd: prefixes. Every rule reads a line at a time with
 * bounded patterns, so a hostile mail costs time in proportion to its size.
 */

/** Lines longer than this are never taken for a quote's attribution line. */
const MAX_MARKER_LINE = 1000;

/** "On <date>, <someone> wrote:", in the languages mail clients commonly write it. */
const ATTRIBUTION =
  /^\s*(?:On|Le|Am|El|Il|Op|Em|Den|Dne|W dniu)\b.{0,300}?\b(?:wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev|napsal|napisał)\s*:?\s*$/i;
/** German, Dutch and Scandinavian clients name the writer after the verb: "Am <date> schrieb <someone>:". */
const ATTRIBUTION_NAME_LAST = /^\s*(?:Am|Op|Den)\b.{0,300}?\b(?:schrieb|schreef|skrev)\b.{0,300}:\s*$/i;
/** Outlook's separators before the mail it answers. */
const ORIGINAL_MESSAGE = /^\s*-{2,}\s*(?:Original Message|Message d'origine|Ursprüngliche Nachricht|Mensaje original)\s*-{2,}\s*$/i;
/** Outlook's header block of the mail it answers: "From: ..." with "Sent:" or "Date:" soon after. */
const HEADER_FROM = /^\s*\*?(?:From|De|Von|Van|Från)\*?\s*:/i;
const HEADER_SENT = /^\s*\*?(?:Sent|Date|Envoyé|Gesendet|Enviado|Verzonden|Skickat)\*?\s*:/i;
/** A forwarded mail keeps everything: the quote is what is being shared. */
const FORWARDED = /^\s*(?:-{2,}\s*Forwarded message\s*-{2,}|Begin forwarded message:)\s*$/i;

function isSplitter(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  if (line.length > MAX_MARKER_LINE) return false;
  if (ATTRIBUTION.test(line) || ATTRIBUTION_NAME_LAST.test(line) || ORIGINAL_MESSAGE.test(line)) return true;
  // Clients wrap a long attribution: "On <date>, <someone>" then "<address> wrote:".
  const next = lines[i + 1];
  if (/^\s*(?:On|Le|Am|El)\b/i.test(line) && next !== undefined && next.length <= MAX_MARKER_LINE && ATTRIBUTION.test(`${line} ${next}`)) {
    return true;
  }
  if (HEADER_FROM.test(line)) {
    for (let j = i + 1; j < Math.min(lines.length, i + 5); j++) if (HEADER_SENT.test(lines[j])) return true;
  }
  return false;
}

const isQuoted = (line: string) => /^\s*>/.test(line);
const isBlank = (line: string) => line.trim() === "";

/**
 * The reply without the mail it quotes. A quote counts only where it ends the mail: after an
 * attribution or header line everything is quoted; a run of `>` lines is dropped only when
 * nothing but blank lines follows it, so replies written between quoted lines stay whole. A
 * mail that is all quote, or a forward, is kept as it is.
 */
export function stripQuotedReply(text: string): string {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  const firstText = lines.findIndex((l) => !isBlank(l));
  if (firstText === -1 || FORWARDED.test(lines[firstText])) return text;
  // Where the closing run of quoted and blank lines starts.
  let tail = lines.length;
  while (tail > 0 && (isQuoted(lines[tail - 1]) || isBlank(lines[tail - 1]))) tail--;
  let cut = -1;
  for (let i = 0; i < lines.length && cut === -1; i++) {
    if (isSplitter(lines, i) || (i >= tail && isQuoted(lines[i]))) cut = i;
  }
  if (cut === -1) return text;
  const reply = lines.slice(0, cut).join("\n").trimEnd();
  return reply.trim() === "" ? text : reply;
}

/**
 * The text without its signature: everything from a `--` line on, when there is exactly one
 * such line (with more, there is no telling which one starts the signature, and nothing goes).
 */
export function stripFooter(text: string): string {
  const lines = text.split("\n");
  const markers = lines.filter((l) => l.trim() === "--").length;
  if (markers !== 1) return text;
  return lines
    .slice(0, lines.findIndex((l) => l.trim() === "--"))
    .join("\n")
    .trim();
}

/** Subjects longer than this are cut before they are read; a topic keeps 60 characters anyway. */
const MAX_SUBJECT = 1000;

/** Reply and forward prefixes in the languages clients write them ("Re:", "AW:", "SV:", "Fwd:", "[Fw:]"...). */
const PREFIX = /([[(] *)?\b(RE|AW|SV|FWD?) *(\[\d+\])?([-:;)\]][ :;\])-]*|$)|\]+ *$/gim;
const FORWARD_PREFIX = /^([[(] *)?\b(FWD?) *([-:;)\]][ :;\])-]*|$)|^\]+ *$/i;

/** The subject without its reply and forward prefixes. */
export function stripSubjectPrefixes(subject: string): string {
  return subject.slice(0, MAX_SUBJECT).replace(PREFIX, "").trim();
}

/** Whether the subject says the mail is forwarded (then its quotes are kept unless the address says otherwise). */
export function isForwardedSubject(subject: string): boolean {
  return FORWARD_PREFIX.test(subject.slice(0, MAX_SUBJECT));
}
