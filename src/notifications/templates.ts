/**
 * The bodies of notification and digest emails: a plain-text part and an HTML part built from
 * the same facts. Every value is escaped into the HTML except message renderings, which are the
 * server's own sanitized HTML, with their relative links made absolute for a mail reader.
 */
import { escapeHtml } from "../routes/web/signup.js";

export interface EmailMessage {
  senderName: string;
  /** The message's rendering (HTML). */
  html: string;
  /** The message's Markdown source. */
  text: string;
}

export interface EmailFooter {
  realmName: string;
  settingsUrl: string;
  unsubscribeUrl: string;
  /** Why the email was sent, one sentence. */
  reason: string;
}

/** Relative links in a rendering point at the server the email came from. */
export function absoluteLinks(html: string, base: string): string {
  return html.replace(/\b(href|src)="\/(?!\/)/g, `$1="${base}/`);
}

const STYLE = "font-family:system-ui,-apple-system,sans-serif;color:#1d1d1f;max-width:40rem";

function footerText(f: EmailFooter): string {
  return `--\n${f.reason}\nManage your email notifications for ${f.realmName}: ${f.settingsUrl}\nUnsubscribe: ${f.unsubscribeUrl}\n`;
}

function footerHtml(f: EmailFooter): string {
  return `<hr><p style="color:#6e6e73;font-size:0.85em">${escapeHtml(f.reason)}<br>
<a href="${escapeHtml(f.settingsUrl)}">Manage email notifications for ${escapeHtml(f.realmName)}</a> ·
<a href="${escapeHtml(f.unsubscribeUrl)}">Unsubscribe</a></p>`;
}

export interface NotificationEmailFacts {
  /** `#channel > topic`, `Direct messages from …`: what the conversation is. */
  heading: string;
  narrowUrl: string;
  /** Empty when message content is kept out of emails. */
  messages: EmailMessage[];
  contentHidden: boolean;
  /** Replies to the email are posted to the conversation (the email gateway is configured). */
  replyPosts: boolean;
  footer: EmailFooter;
  base: string;
}

export function notificationEmailBodies(f: NotificationEmailFacts): { text: string; html: string } {
  const replyHint = f.replyPosts ? "Reply to this email directly, or view it in Zulip" : "View or reply in Zulip";
  const lines: string[] = [f.heading, ""];
  const html: string[] = [`<div style="${STYLE}">`, `<h2 style="font-size:1.1em"><a href="${escapeHtml(f.narrowUrl)}">${escapeHtml(f.heading)}</a></h2>`];
  if (f.contentHidden) {
    lines.push("You have new messages in this conversation; this organization or your settings keep their content out of emails.", "");
    html.push("<p>You have new messages in this conversation; this organization or your settings keep their content out of emails.</p>");
  }
  let previousSender: string | undefined;
  for (const m of f.messages) {
    if (m.senderName !== previousSender) {
      lines.push(`${m.senderName}:`);
      html.push(`<p style="margin:1em 0 0.2em"><strong>${escapeHtml(m.senderName)}</strong></p>`);
      previousSender = m.senderName;
    }
    lines.push(m.text, "");
    html.push(`<div style="margin-left:0.5em">${absoluteLinks(m.html, f.base)}</div>`);
  }
  lines.push(`${replyHint}: ${f.narrowUrl}`, "");
  html.push(`<p><a href="${escapeHtml(f.narrowUrl)}">${escapeHtml(replyHint)}</a></p>`, footerHtml(f.footer), "</div>");
  return { text: lines.join("\n") + footerText(f.footer), html: html.join("\n") };
}

export interface DigestTopicFacts {
  heading: string;
  url: string;
  /** The first few messages. */
  messages: EmailMessage[];
  /** Messages beyond those shown. */
  more: number;
  participants: string[];
}

export interface DigestFacts {
  realmName: string;
  realmUrl: string;
  hotTopics: DigestTopicFacts[];
  newChannels: { name: string; url: string }[];
  footer: EmailFooter;
  base: string;
}

export function digestBodies(d: DigestFacts): { text: string; html: string } {
  const lines = [`Here is what happened in ${d.realmName} while you were away.`, ""];
  const html = [`<div style="${STYLE}">`, `<p>Here is what happened in <a href="${escapeHtml(d.realmUrl)}">${escapeHtml(d.realmName)}</a> while you were away.</p>`];
  if (d.hotTopics.length) {
    lines.push("Hot conversations", "");
    html.push(`<h2 style="font-size:1.1em">Hot conversations</h2>`);
    for (const t of d.hotTopics) {
      lines.push(`${t.heading} (${t.participants.join(", ")})`, t.url);
      html.push(`<h3 style="font-size:1em"><a href="${escapeHtml(t.url)}">${escapeHtml(t.heading)}</a></h3>`);
      html.push(`<p style="color:#6e6e73">${escapeHtml(t.participants.join(", "))}</p>`);
      for (const m of t.messages) {
        lines.push(`  ${m.senderName}: ${m.text}`);
        html.push(`<p style="margin:0.5em 0 0.2em"><strong>${escapeHtml(m.senderName)}</strong></p><div>${absoluteLinks(m.html, d.base)}</div>`);
      }
      if (t.more > 0) {
        lines.push(`  ${t.more} more message${t.more === 1 ? "" : "s"}`);
        html.push(`<p><a href="${escapeHtml(t.url)}">${t.more} more message${t.more === 1 ? "" : "s"}</a></p>`);
      }
      lines.push("");
    }
  }
  if (d.newChannels.length) {
    lines.push(`New channels: ${d.newChannels.map((c) => c.name).join(", ")}`, "");
    html.push(
      `<h2 style="font-size:1.1em">New channels</h2><p>${d.newChannels.map((c) => `<a href="${escapeHtml(c.url)}">${escapeHtml(c.name)}</a>`).join(", ")}</p>`,
    );
  }
  html.push(footerHtml(d.footer), "</div>");
  return { text: lines.join("\n") + footerText(d.footer), html: html.join("\n") };
}
