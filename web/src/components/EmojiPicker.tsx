/** A searchable emoji list (Unicode and the organization's custom emoji) for reactions and compose. */
import { useEffect, useState } from "preact/hooks";
import { codeToChar, searchEmoji, type EmojiChoice } from "../emoji";

export function EmojiPicker({ onPick, onClose }: { onPick: (e: EmojiChoice) => void; onClose: () => void }) {
  const [query, setQuery] = useState("");
  const [choices, setChoices] = useState<EmojiChoice[]>([]);
  useEffect(() => {
    let live = true;
    void searchEmoji(query, 60).then((c) => live && setChoices(c));
    return () => {
      live = false;
    };
  }, [query]);
  return (
    <div class="emoji-picker" role="dialog" aria-label="Emoji picker" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <label class="sr-only" for="emoji-search">
        Search emoji
      </label>
      <input id="emoji-search" placeholder="Search emoji" value={query} onInput={(e) => setQuery(e.currentTarget.value)} ref={(el) => el?.focus()} />
      <ul>
        {choices.map((c) => (
          <li key={`${c.type}:${c.code}`}>
            <button type="button" title={`:${c.name}:`} aria-label={c.name.replace(/_/g, " ")} data-emoji={c.name} onClick={() => onPick(c)}>
              {c.url ? <img src={c.url} alt="" class="emoji" /> : codeToChar(c.code)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
