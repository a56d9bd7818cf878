/** HTML rendered by the server (messages, previews, descriptions), with emoji shown as characters and global times in the reader's time. */
import { useEffect, useRef } from "preact/hooks";
import { showEmoji } from "../emoji";
import { model } from "../model";
import { globalTime } from "../time";

/** A global time (`<time:…>`): the server sends UTC and the sender's own words; each reader sees it in their time zone. */
function showLocalTime(el: HTMLTimeElement, twentyFour: unknown) {
  const text = globalTime(el.dateTime, twentyFour);
  if (text === null) return;
  // Kept on the element: this runs again on the same element when the time format changes.
  el.dataset.written ??= el.textContent ?? "";
  el.textContent = text;
  el.title = `In your time zone. Written as: ${el.dataset.written}`;
}

export function Rendered({ html, class: className, label }: { html: string; class: string; label?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const twentyFour = model.settings.twenty_four_hour_time;
  useEffect(() => {
    if (!ref.current) return;
    showEmoji(ref.current);
    for (const m of ref.current.querySelectorAll(`.user-mention[data-user-id="${model.me.user_id}"]`)) m.classList.add("self");
    for (const t of ref.current.querySelectorAll<HTMLTimeElement>("time[datetime]")) showLocalTime(t, twentyFour);
  }, [html, twentyFour]);
  return <div class={`rendered ${className}`} ref={ref} aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}
