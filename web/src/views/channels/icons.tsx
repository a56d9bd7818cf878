/** Small inline icons of the channels views, drawn in the text's colour. */
import type { Privacy } from "./channelInfo";

export function PrivacyIcon({ privacy }: { privacy: Privacy }) {
  if (privacy === "public") {
    return (
      <span class="privacy-icon hash" role="img" aria-label="public">
        #
      </span>
    );
  }
  if (privacy === "web-public") {
    return (
      <svg class="privacy-icon" viewBox="0 0 12 12" width="12" height="12" role="img" aria-label="web-public">
        <path
          d="M6 .8a5.2 5.2 0 1 1 0 10.4A5.2 5.2 0 0 1 6 .8m-1 1.5A3.9 3.9 0 0 0 2.2 5.4h1.6c.1-1.1.5-2.2 1.2-3.1m2 0c.7.9 1.1 2 1.2 3.1h1.6A3.9 3.9 0 0 0 7 2.3M6 2.6c-.6.8-.9 1.8-1 2.8h2c-.1-1-.4-2-1-2.8M2.2 6.6A3.9 3.9 0 0 0 5 9.7c-.7-.9-1.1-2-1.2-3.1zm2.8 0c.1 1 .4 2 1 2.8.6-.8.9-1.8 1-2.8zm3.2 0C8.1 7.7 7.7 8.8 7 9.7a3.9 3.9 0 0 0 2.8-3.1z"
          fill="currentColor"
        />
      </svg>
    );
  }
  return (
    <svg class="privacy-icon" viewBox="0 0 10 12" width="10" height="12" role="img" aria-label="private">
      <path d="M2 5V3.5a3 3 0 0 1 6 0V5h1v7H1V5zm1.5 0h3V3.5a1.5 1.5 0 0 0-3 0z" fill="currentColor" />
    </svg>
  );
}

export function PeopleIcon() {
  return (
    <svg viewBox="0 0 14 12" width="13" height="11" aria-hidden="true">
      <path d="M5 1.2a2.3 2.3 0 1 1 0 4.6 2.3 2.3 0 0 1 0-4.6M.5 11c0-2.2 2-3.7 4.5-3.7s4.5 1.5 4.5 3.7zm9.3-9.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4m.7 5.4c1.8.3 3 1.6 3 3.1v1h-2.8c0-1.6-.6-3-1.8-3.9z" fill="currentColor" />
    </svg>
  );
}

export function BrowseIcon() {
  return (
    <svg viewBox="0 0 14 14" width="14" height="14" aria-hidden="true">
      <path d="M6 1a5 5 0 0 1 4 8l3.5 3.5-1.1 1.1L8.9 10A5 5 0 1 1 6 1m0 1.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7" fill="currentColor" />
    </svg>
  );
}
