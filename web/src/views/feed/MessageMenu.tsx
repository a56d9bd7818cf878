/**
 * A message's "⋮" menu, as Zulip's message actions: quote and reply, edit, move, star, mark as
 * unread from here, copy its link, view its source, edit history or read receipts, report, delete. `i` opens it
 * for the selected message, as in Zulip.
 */
import "./menus.css";
import { useEffect, useRef, useState } from "preact/hooks";
import { changed, model, useModel, type Message } from "../../model";
import { markUnreadFrom, rawContent, setStarred } from "../../messages";
import { messageUrl } from "../../navigate";
import { compose, replyTo } from "../compose/Compose";
import { MenuButton, MenuItem, MenuSeparator, Popover, useAction, useMenu } from "../../components/Popover";
import { DeleteDialog, HistoryDialog, LinkDialog, ReadReceiptsDialog, ReportDialog, SourceDialog } from "./MessageDialogs";
import { MoveDialog } from "./MoveDialog";
import { canDelete, canEditContent, canMove, canReport, canSeeEditHistory } from "../../permissions";

type Dialog = "source" | "history" | "receipts" | "report" | "delete" | "move" | "link";

/** Zulip's fence for quoting text: one backtick longer than any fence inside it. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/^ {0,3}(`{3,})/gm)].map((f) => f[1].length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** Zulip's quote: who said it, linked to the message, and the raw text in a quote block. */
function quoteOf(m: Message, raw: string): string {
  const fence = fenceFor(raw);
  return `@_**${m.sender_full_name}|${m.sender_id}** [said](${messageUrl(m)}):\n${fence}quote\n${raw}\n${fence}\n`;
}

/** Into the open compose box, or a new reply to the message's conversation. */
async function quoteAndReply(m: Message) {
  const quote = quoteOf(m, await rawContent(m.id));
  if (compose.open) {
    compose.content = compose.content ? `${compose.content}\n${quote}` : quote;
    changed();
    requestAnimationFrame(() => document.getElementById("compose-content")?.focus());
  } else {
    replyTo(m, quote);
  }
}

export function MessageMenu({ m, selected, onEdit }: { m: Message; selected: boolean; onEdit: () => void }) {
  const menu = useMenu<Dialog>();
  const { dialog, hide } = menu;

  // The `i` shortcut (in the shortcuts table) asks the selected message's menu to open.
  useEffect(() => {
    if (!selected) return;
    const onOpen = () => menu.setOpen(true);
    document.addEventListener("confab:message-menu", onOpen);
    return () => document.removeEventListener("confab:message-menu", onOpen);
  }, [selected]);

  return (
    <>
      <MenuButton menu={menu} class="menu-button" label="Message actions" title="Message actions (i)">
        ⋮
      </MenuButton>
      {menu.open && <Actions m={m} anchor={menu.button.current!} close={menu.close} show={menu.show} onEdit={onEdit} />}
      {dialog === "source" && <SourceDialog m={m} onClose={hide} />}
      {dialog === "history" && <HistoryDialog m={m} onClose={hide} />}
      {dialog === "receipts" && <ReadReceiptsDialog m={m} onClose={hide} />}
      {dialog === "report" && <ReportDialog m={m} onClose={hide} />}
      {dialog === "delete" && <DeleteDialog m={m} onClose={hide} />}
      {dialog === "move" && <MoveDialog m={m} whole={false} onClose={hide} />}
      {dialog === "link" && <LinkDialog url={messageUrl(m)} onClose={hide} />}
    </>
  );
}

interface ActionsProps {
  m: Message;
  anchor: HTMLElement;
  close: (refocus: boolean) => void;
  show: (d: Dialog) => void;
  onEdit: () => void;
}

function Actions({ m, anchor, close, show, onEdit }: ActionsProps) {
  // An open menu follows the organization's settings (read receipts turned off) and the reader's role.
  useModel();
  const { busy, error, run } = useAction(() => close(true));
  const [note, setNote] = useState("");
  const closing = useRef(0);
  useEffect(() => () => clearTimeout(closing.current), []);
  const starred = m.flags.includes("starred");
  const movable = m.type === "stream" && canMove(m.stream_id!);

  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(messageUrl(m));
    } catch {
      // No clipboard for this page (plain HTTP) or no permission: the link is shown to copy by hand.
      show("link");
      return;
    }
    setNote("Link copied to the clipboard");
    // Long enough to be read.
    closing.current = window.setTimeout(() => close(true), 900);
  };

  return (
    <Popover anchor={anchor} label="Message actions" onClose={close} error={error} note={note} busy={busy}>
      <MenuItem disabled={busy} onSelect={() => void run(() => quoteAndReply(m))}>
        Quote and reply
      </MenuItem>
      {canEditContent(m) && (
        <MenuItem
          onSelect={() => {
            close(false);
            onEdit();
          }}
        >
          Edit message
        </MenuItem>
      )}
      {movable && <MenuItem onSelect={() => show("move")}>Move messages</MenuItem>}
      <MenuItem disabled={busy} onSelect={() => void run(() => setStarred(m, !starred))}>
        {starred ? "Unstar message" : "Star message"}
      </MenuItem>
      <MenuItem disabled={busy} onSelect={() => void run(() => markUnreadFrom(m.id))}>
        Mark as unread from here
      </MenuItem>
      <MenuItem onSelect={() => void copyLink()}>Copy link to message</MenuItem>
      <MenuSeparator />
      <MenuItem onSelect={() => show("source")}>View message source</MenuItem>
      {canSeeEditHistory(m) && <MenuItem onSelect={() => show("history")}>View edit history</MenuItem>}
      {model.realmSettings.realm_enable_read_receipts === true && <MenuItem onSelect={() => show("receipts")}>View read receipts</MenuItem>}
      {canReport(m) && <MenuItem onSelect={() => show("report")}>Report message</MenuItem>}
      {canDelete(m) && (
        <MenuItem danger onSelect={() => show("delete")}>
          Delete message
        </MenuItem>
      )}
    </Popover>
  );
}
