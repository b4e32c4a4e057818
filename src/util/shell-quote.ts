/** Quotes one word for a POSIX shell: wrapped in single quotes, with `'` written as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
