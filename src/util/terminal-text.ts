/**
 * Makes model and tool output safe to print on a terminal: CRLF becomes LF, and every other control
 * character becomes visible text, so no escape sequence from a model, a tool or a trajectory reaches
 * the terminal. C0 controls (ESC included) and DEL take caret notation (`^[`, `^?`); the C1 controls
 * U+0080-U+009F, which some terminals obey too (U+009B is CSI), take `cat -v`'s (`M-^[`).
 * Newlines and tabs are kept.
 */
export function neutralize(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (ch) => {
    const code = ch.charCodeAt(0);
    if (code === 0x7f) return "^?";
    return code < 0x80 ? `^${String.fromCharCode(code + 64)}` : `M-^${String.fromCharCode(code - 128 + 64)}`;
  });
}
