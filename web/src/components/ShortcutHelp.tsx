/** The keyboard shortcuts overlay (`?`), listing the table the key handler uses. */
import { SHORTCUTS, type Shortcut } from "../shortcuts";

const SECTIONS: Shortcut["section"][] = ["Basics", "Navigation", "Composing", "Message actions"];

export function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    <div class="modal shortcut-help" role="dialog" aria-label="Keyboard shortcuts" aria-modal="true">
      <h2>Keyboard shortcuts</h2>
      <div class="shortcut-sections">
        {SECTIONS.map((section) => (
          <section key={section}>
            <h3>{section}</h3>
            <dl>
              {SHORTCUTS.filter((s) => s.section === section).map((s) => (
                <div class="shortcut" key={s.keys}>
                  <dt>
                    {s.keys.split(" or ").map((k, i) => (
                      <>
                        {i > 0 && " or "}
                        {k.split(" + ").map((part, j) => (
                          <>
                            {j > 0 && " + "}
                            <kbd>{part}</kbd>
                          </>
                        ))}
                      </>
                    ))}
                  </dt>
                  <dd>{s.label}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
