/**
 * A NUL byte cannot reach bash (C strings end at it) nor a file name; a reply with one is a format
 * error the model can act on, instead of a failed command or an environment error.
 */
export function nulProblem(what: string, text: string): string | null {
  const at = text.indexOf("\0");
  if (at < 0) return null;
  return `${what} contains a NUL byte (character 0, at position ${at + 1}), which bash and file names cannot hold. Remove it; to produce one in a file or a pipe, write it as an escape, e.g. printf '\\0'.`;
}
