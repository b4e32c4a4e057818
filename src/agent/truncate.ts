/**
 * Keeps the head and the tail of `text` when it is longer than `limit` characters and says how
 * many characters were left out in between.
 */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil(limit / 2);
  const tail = Math.floor(limit / 2);
  const omitted = text.length - head - tail;
  return (
    `${text.slice(0, head)}\n` +
    `[... ${omitted} characters omitted: the output was ${text.length} characters, over the ${limit}-character limit; ` +
    `narrow the command (grep, head, tail, sed -n) to see the part you need ...]\n` +
    `${text.slice(text.length - tail)}`
  );
}
