/** Moving between narrows: the URL hash follows, so Back and reload keep the place. */
import { loadNarrow } from "./messages";
import { hashToNarrow, narrowToHash, type Narrow } from "./narrow";

export function go(narrow: Narrow): void {
  const hash = narrowToHash(narrow);
  if (window.location.hash !== hash) history.pushState(null, "", hash);
  document.dispatchEvent(new CustomEvent("confab:narrow"));
  void loadNarrow(narrow);
}

export function narrowFromLocation(): Narrow {
  return hashToNarrow(window.location.hash);
}

window.addEventListener("popstate", () => void loadNarrow(narrowFromLocation()));
