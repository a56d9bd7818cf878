/**
 * The Porter stemmer (M. F. Porter, 1980), as SQLite's FTS5 `porter` tokenizer applies it to the
 * words it indexes: highlighting marks a word of a message when its stem is a search word's stem,
 * as the index matched it. Input is one lowercased word; words of non-ASCII letters are kept.
 */

const isConsonant = (w: string, i: number): boolean => {
  const c = w[i];
  if ("aeiou".includes(c!)) return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
};

/** m, the number of vowel-consonant sequences in `w` (the "measure"). */
function measure(w: string): number {
  let n = 0;
  let i = 0;
  const len = w.length;
  while (i < len && isConsonant(w, i)) i++;
  while (i < len) {
    while (i < len && !isConsonant(w, i)) i++;
    if (i >= len) break;
    while (i < len && isConsonant(w, i)) i++;
    n++;
  }
  return n;
}

const hasVowel = (w: string) => [...w].some((_, i) => !isConsonant(w, i));
const endsDoubleConsonant = (w: string) => w.length >= 2 && w.at(-1) === w.at(-2) && isConsonant(w, w.length - 1);
/** Consonant-vowel-consonant at the end, the last not w, x or y. */
const endsCvc = (w: string) => {
  const n = w.length;
  return n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !"wxy".includes(w[n - 1]!);
};

/** Replaces the first matching suffix when the stem before it has a measure above `min`. */
function replaceSuffix(w: string, rules: readonly [string, string][], min: number): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return measure(stem) > min ? stem + replacement : w;
  }
  return w;
}

const STEP2: [string, string][] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["abli", "able"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"],
];
const STEP3: [string, string][] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
  "iti", "ous", "ive", "ize",
];

export function porterStem(word: string): string {
  let w = word;
  if (w.length <= 2 || !/^[a-z]+$/.test(w)) return w;
  // Step 1a: plurals.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1);
  // Step 1b: -eed, -ed, -ing.
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith("ed") ? 2 : w.endsWith("ing") ? 3 : 0;
    if (suffix && hasVowel(w.slice(0, -suffix))) {
      w = w.slice(0, -suffix);
      if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
      else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += "e";
    }
  }
  // Step 1c: y to i.
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + "i";
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // Step 4: the longest matching suffix goes when the stem's measure is above 1.
  const suffix = STEP4.filter((s) => w.endsWith(s)).sort((a, b) => b.length - a.length)[0];
  if (suffix) {
    const stem = w.slice(0, -suffix.length);
    if (measure(stem) > 1 && (suffix !== "ion" || /[st]$/.test(stem))) w = stem;
  }
  // Step 5: a final e, a double l.
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}
