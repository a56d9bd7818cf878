/**
 * `search:` latency through the word index: the scale benchmark's search requests (a word in 1%
 * of messages, two words in an eighth, a word with one found nowhere) on 100,000 messages.
 *   npm run bench -- search [--messages=100000] [--requests=200]
 */
import { run as runScale } from "./scale.js";

export async function run(args: string[]): Promise<void> {
  const defaults = ["--messages=100000", "--only=search"].filter((d) => !args.some((a) => a.startsWith(d.split("=")[0] + "=")));
  await runScale([...defaults, ...args]);
}
