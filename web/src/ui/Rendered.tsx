/** HTML rendered by the server (messages, previews, descriptions), with emoji shown as characters. */
import { useEffect, useRef } from "preact/hooks";
import { showEmoji } from "../emoji";

export function Rendered({ html, class: className, label }: { html: string; class: string; label?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ref.current) showEmoji(ref.current);
  }, [html]);
  return <div class={`rendered ${className}`} ref={ref} aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}
