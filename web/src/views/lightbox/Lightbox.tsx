/**
 * The image lightbox: a click on an image preview in a message opens the image large, over the
 * page; the arrow keys (and buttons) go to the previous and next image previews of the messages
 * shown, Escape closes. Uploaded images show their thumbnail at once and the original once it
 * has loaded, as Zulip's lightbox does.
 */
import "./lightbox.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Modal } from "../../components/Modal";

/** Previews the lightbox shows: image ones, not videos or YouTube links. */
const PREVIEW_LINKS = "article.message .message_inline_image:not(.message_inline_video):not(.youtube-video) > a";

export interface LightboxImage {
  /** What the link points at: the full image. */
  href: string;
  /** What the preview shows, shown while the full image loads. */
  preview: string;
  title: string;
}

function imageOf(a: HTMLAnchorElement): LightboxImage {
  const img = a.querySelector("img");
  const href = a.getAttribute("href") ?? "";
  // Formats browsers cannot show (TIFF, HEIC) come with a large transcoded thumbnail instead.
  const transcoded = img?.dataset.transcodedImage;
  const full = transcoded && img?.src.includes("/user_uploads/thumbnail/") ? img.src.replace(/[^/]+$/, transcoded) : href;
  const placeholder = !img || img.classList.contains("image-loading-placeholder");
  return {
    href: full,
    preview: placeholder ? full : img.src,
    title: a.title || decodeURIComponent(href.split(/[?#]/)[0].split("/").pop() ?? ""),
  };
}

function Lightbox({ images, start, onClose }: { images: LightboxImage[]; start: number; onClose: () => void }) {
  const [at, setAt] = useState(start);
  const [loaded, setLoaded] = useState<string | null>(null);
  const image = images[at];
  const move = (by: number) => setAt((i) => Math.min(images.length - 1, Math.max(0, i + by)));
  useEffect(() => {
    // The full image replaces the preview only once it is there, so the preview never blinks out.
    let live = true;
    const full = new Image();
    full.onload = () => live && setLoaded(image.href);
    full.src = image.href;
    return () => {
      live = false;
    };
  }, [image.href]);
  return (
    <Modal
      title={image.title}
      class="lightbox"
      onClose={onClose}
      initialFocus=".dialog-close"
      onKey={(e) => {
        if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
          e.preventDefault();
          move(e.key === "ArrowLeft" ? -1 : 1);
          return true;
        }
        return false;
      }}
    >
      <div class="lightbox-stage">
        <img class="lightbox-image" src={loaded === image.href ? image.href : image.preview} alt={image.title} />
      </div>
      <div class="lightbox-bar">
        <button type="button" aria-label="Previous image" disabled={at === 0} onClick={() => move(-1)}>
          ‹
        </button>
        <span class="lightbox-count">
          {at + 1} / {images.length}
        </span>
        <button type="button" aria-label="Next image" disabled={at === images.length - 1} onClick={() => move(1)}>
          ›
        </button>
        <a href={image.href} target="_blank" rel="noopener noreferrer">
          Open original
        </a>
      </div>
    </Modal>
  );
}

let host: HTMLElement | null = null;

export function openLightbox(images: LightboxImage[], start: number): void {
  closeLightbox();
  host = document.createElement("div");
  document.body.append(host);
  render(<Lightbox images={images} start={start} onClose={closeLightbox} />, host);
}

function closeLightbox(): void {
  if (!host) return;
  render(null, host);
  host.remove();
  host = null;
}

/** For a message's click handler: opens the lightbox when the click was on an image preview. */
export function lightboxClick(e: MouseEvent): void {
  // Modified clicks keep the browser's meaning (a new tab).
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  const link = (e.target as Element | null)?.closest?.<HTMLAnchorElement>(".message_inline_image > a");
  if (!link) return;
  const links = [...document.querySelectorAll<HTMLAnchorElement>(PREVIEW_LINKS)];
  const start = links.indexOf(link);
  if (start < 0) return;
  e.preventDefault();
  openLightbox(links.map(imageOf), start);
}
