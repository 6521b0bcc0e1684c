// Paragraph filling for commit messages in `loch log`, as the reference
// lays them out: paragraphs (split at blank lines) are filled to a line
// width with minimal raggedness, indented, and separated by blank lines.

/** Past this many words a paragraph is filled greedily (the optimal fill is quadratic). */
const MAX_OPTIMAL_WORDS = 2000;
/** Added to the cost of a line longer than the limit (a single long word). */
const LONG_LINE_PENALTY = 100000;

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Breaks words into lines of at most `limit` characters (counting one space
 * between words), minimizing the sum of the squared shortfalls of all lines
 * but the last.
 */
export function fillWords(words: string[], limit: number): string[][] {
  const n = words.length;
  if (n === 0) return [];
  const lens = words.map(runeCount);
  if (n > MAX_OPTIMAL_WORDS) return greedy(words, lens, limit);
  // prefix[i] = length of words[0..i) joined with spaces, plus one.
  const prefix = new Array<number>(n + 1);
  prefix[0] = 0;
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + lens[i] + 1;
  const lineLen = (i: number, j: number) => prefix[j + 1] - prefix[i] - 1;
  const cost = new Array<number>(n).fill(Number.MAX_SAFE_INTEGER);
  const next = new Array<number>(n).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    if (lineLen(i, n - 1) <= limit) {
      cost[i] = 0;
      next[i] = n;
      continue;
    }
    for (let j = i + 1; j < n; j++) {
      const len = lineLen(i, j - 1);
      const d = limit - len;
      let c = d * d + cost[j];
      if (len > limit) c += LONG_LINE_PENALTY;
      if (c < cost[i]) {
        cost[i] = c;
        next[i] = j;
      }
    }
  }
  const lines: string[][] = [];
  for (let i = 0; i < n; i = next[i]) lines.push(words.slice(i, next[i]));
  return lines;
}

function greedy(words: string[], lens: number[], limit: number): string[][] {
  const lines: string[][] = [];
  let line: string[] = [];
  let len = 0;
  for (let i = 0; i < words.length; i++) {
    if (line.length > 0 && len + 1 + lens[i] > limit) {
      lines.push(line);
      line = [];
      len = 0;
    }
    len += (line.length > 0 ? 1 : 0) + lens[i];
    line.push(words[i]);
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/** Fills one paragraph: newlines become spaces, words are split at single spaces. */
function fill(text: string, limit: number): string {
  const words = text.trim().replaceAll("\n", " ").split(" ");
  return fillWords(words, limit).map((l) => l.join(" ")).join("\n");
}

/**
 * A message as indented filled paragraphs ending in one blank line, as the
 * reference's commit layout (charm.FormatParagraph, then trimmed).
 */
export function formatMessage(body: string, indent: string, width: number): string {
  const paragraphs = body.split("\n\n").map((p) =>
    fill(p.trim(), width).replaceAll("\n", "\n" + indent)
  );
  const text = (indent + paragraphs.join("\n\n" + indent)).replace(/[ \t\n]+$/, "");
  return text.replace(/[ \n]+$/, "") + "\n\n";
}
