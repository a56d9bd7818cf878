/**
 * A person's picture wherever people appear, or the first letter of their name on a tile. It
 * reads the user from the model on each render, so an avatar changed elsewhere (a realm_user
 * event) shows at once.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api";
import { model } from "../model";

/**
 * Only images this server stores are shown: the client must work on a LAN without the internet
 * (no Gravatar). Register gives some of them (the organization's icon) as absolute URLs.
 */
export function localImage(url: string | null | undefined): url is string {
  if (!url) return false;
  if (url.startsWith("/")) return !url.startsWith("//");
  return url.startsWith(`${location.origin}/`);
}

export function AvatarImage({ userId, name }: { userId: number; name: string }) {
  const url = model.users.get(userId)?.avatar_url;
  return localImage(url) ? <img src={url} alt="" loading="lazy" /> : <>{name.slice(0, 1)}</>;
}

/** The tile itself; `class` sizes it (the feed's, a list's, a card's). */
export function Avatar({ userId, name, class: extra = "" }: { userId: number; name: string; class?: string }) {
  return (
    <span class={`avatar ${extra}`} aria-hidden="true">
      <AvatarImage userId={userId} name={name} />
    </span>
  );
}

/**
 * Choosing an image for an upload endpoint (one's avatar, the organization's icon or logo), and
 * removing it: the server's error, if any, is shown beside it.
 */
export function ImageUpload(props: { label: string; preview: ComponentChildren; upload: string; remove: string; removable: boolean; disabled?: string }) {
  const [msg, setMsg] = useState("");
  const run = async (what: () => Promise<unknown>) => {
    setMsg("");
    try {
      await what();
    } catch (e) {
      setMsg((e as Error).message);
    }
  };
  const send = (file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return run(() => api("POST", props.upload, {}, { body: form }));
  };
  const id = `upload${props.upload.replace(/\W+/g, "-")}`;
  return (
    <div class="image-upload">
      <div class="image-upload-preview">{props.preview}</div>
      <div class="image-upload-actions">
        {props.disabled ? (
          <p class="note">{props.disabled}</p>
        ) : (
          <>
            <label for={id} class="button">
              {props.label}
            </label>
            <input
              id={id}
              type="file"
              accept="image/*"
              class="sr-only"
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = "";
                if (file) void send(file);
              }}
            />
            {props.removable && (
              <button type="button" class="secondary" onClick={() => void run(() => api("DELETE", props.remove))}>
                Remove
              </button>
            )}
          </>
        )}
        {msg && (
          <p role="status" class="error">
            Error: {msg}
          </p>
        )}
      </div>
    </div>
  );
}
