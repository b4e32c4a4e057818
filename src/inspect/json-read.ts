/** Small readers for untyped JSON: each returns null instead of throwing on a wrong type. */

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonRecord) : null;
}

export function asString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function asNumber(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function asBoolean(value: unknown): boolean | null {
  return typeof value === "boolean" ? value : null;
}

export function asStringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The text of a chat message's `content`: a string as is; a list of parts joined by newlines
 * (text parts by their text, images as `[image]`); anything else as empty text.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    const rec = asRecord(part);
    if (typeof part === "string") parts.push(part);
    else if (rec && typeof rec.text === "string") parts.push(rec.text);
    else if (rec && (rec.type === "image_url" || rec.type === "image")) parts.push("[image]");
  }
  return parts.join("\n");
}

/** Sum of the numbers present; null when none is. */
export function sumPresent(values: Array<number | null>): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== null) total = (total ?? 0) + v;
  return total;
}
