/** HTML rendered by the server (messages, previews, descriptions), with emoji shown as characters. */
import { useEffect, useRef } from "preact/hooks";
import { showEmoji } from "../emoji";
import { model } from "../model";

export function Rendered({ html, class: className, label }: { html: string; class: string; label?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    showEmoji(ref.current);
    for (const m of ref.current.querySelectorAll(`.user-mention[data-user-id="${model.me.user_id}"]`)) m.classList.add("self");
  }, [html]);
  return <div class={`rendered ${className}`} ref={ref} aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}
