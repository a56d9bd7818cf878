/** The pieces the settings tabs share. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** Runs a request and shows its outcome ("Saved." or the server's error) where `view` is placed. */
export function useResult() {
  const [msg, setMsg] = useState("");
  const run = async (what: () => Promise<unknown>, ok = "Saved.") => {
    try {
      await what();
      setMsg(ok);
    } catch (e) {
      setMsg(`Error: ${(e as Error).message}`);
    }
  };
  const view = msg ? (
    <p role="status" class={msg.startsWith("Error") ? "error" : "ok"}>
      {msg}
    </p>
  ) : null;
  return { run, view };
}

export function Field({ id, label, children }: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

/** Zulip's role codes, as the role pickers offer them. */
export const ROLES: [number, string][] = [
  [100, "Owner"],
  [200, "Administrator"],
  [300, "Moderator"],
  [400, "Member"],
  [600, "Guest"],
];

export const roleName = (role: number) => ROLES.find(([v]) => v === role)?.[1] ?? `Role ${role}`;

export const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
