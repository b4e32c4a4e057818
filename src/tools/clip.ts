/**
 * Keeps the head and the tail of a long text and replaces the middle with a note saying how many
 * characters were left out and how to see them. Texts within `limit` characters come back unchanged.
 */
export function clipMiddle(text: string, limit: number, howToSeeAll: string): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  const omitted = text.length - 2 * half;
  const note = `\n[... ${omitted} characters left out of the middle of this output (${text.length} in all). ${howToSeeAll} ...]\n`;
  return text.slice(0, half) + note + text.slice(text.length - half);
}
