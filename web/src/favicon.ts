/**
 * The tab's icon: Confab's mark with the unread count on a red badge, as Zulip's web app shows
 * it, drawn on a canvas and set as a data URL on <link rel=icon>. web/public/favicon.ico, which
 * the server answers /favicon.ico with before this script runs, is `drawMark` at 16, 32 and 48 px.
 */
const TILE = "#1a56b8";
const INK = "#ffffff";
const BADGE = "#d92d20";
// Drawn for 2× screens; a tab shows it at 16 CSS pixels.
const SIZE = 64;

/** What the badge says: nothing without unread messages, and a fixed width past two digits. */
export function badgeLabel(count: number): string {
  if (count <= 0) return "";
  return count > 99 ? "99+" : String(count);
}

/** Confab's mark, a speech bubble on a blue tile, on a 32-unit grid scaled to `size`. */
export function drawMark(ctx: CanvasRenderingContext2D, size: number): void {
  ctx.save();
  ctx.scale(size / 32, size / 32);
  ctx.fillStyle = TILE;
  ctx.beginPath();
  ctx.roundRect(0, 0, 32, 32, 7);
  ctx.fill();
  ctx.fillStyle = INK;
  ctx.beginPath();
  ctx.roundRect(5, 6, 22, 15, 4);
  // Clockwise like the rectangle: a tail wound the other way would cancel where the two overlap.
  ctx.moveTo(9, 20);
  ctx.lineTo(16, 20);
  ctx.lineTo(9, 27);
  ctx.fill();
  ctx.fillStyle = TILE;
  for (const x of [11, 16, 21]) {
    ctx.beginPath();
    ctx.arc(x, 13.5, 1.8, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

/** The badge in the top right corner, as wide as its label needs, ringed in white to stand off the tile. */
function drawBadge(ctx: CanvasRenderingContext2D, label: string): void {
  const height = SIZE * 0.62;
  // "99+" fits the tile only in a smaller type than one or two digits.
  ctx.font = `bold ${Math.round(height * (label.length > 2 ? 0.58 : 0.78))}px system-ui, sans-serif`;
  const width = Math.max(height, ctx.measureText(label).width + height * 0.45);
  ctx.fillStyle = INK;
  ctx.beginPath();
  ctx.roundRect(SIZE - width - 2, 0, width + 2, height + 2, (height + 2) / 2);
  ctx.fill();
  ctx.fillStyle = BADGE;
  ctx.beginPath();
  ctx.roundRect(SIZE - width, 0, width, height, height / 2);
  ctx.fill();
  ctx.fillStyle = INK;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(label, SIZE - width / 2, height / 2 + 1);
}

function iconLink(): HTMLLinkElement {
  let link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  return link;
}

let shown: string | undefined;

/** Called on every render of the page: draws only when the badge would read differently. */
export function showUnreadFavicon(count: number): void {
  const label = badgeLabel(count);
  if (label === shown) return;
  shown = label;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = SIZE;
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  drawMark(ctx, SIZE);
  if (label) drawBadge(ctx, label);
  const link = iconLink();
  link.type = "image/png";
  link.href = canvas.toDataURL("image/png");
}
