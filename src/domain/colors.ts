/** Zulip's palette for new subscriptions, picked in turn so a user's channels differ. */
export const STREAM_ASSIGNMENT_COLORS = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
  "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
  "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
];

export function pickStreamColor(usedColors: readonly string[]): string {
  const used = new Set(usedColors);
  return STREAM_ASSIGNMENT_COLORS.find((c) => !used.has(c)) ?? STREAM_ASSIGNMENT_COLORS[usedColors.length % STREAM_ASSIGNMENT_COLORS.length];
}
