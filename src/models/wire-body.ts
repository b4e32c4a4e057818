import { randomBytes } from "node:crypto";
import type { ChatMessage } from "./types.js";

/**
 * The JSON text of a request, made without re-serialising the messages an earlier request already
 * sent. The history layer (src/agent/history/) hands over the same object for an unchanged message
 * at every step, so each message's wire JSON is made once and kept (by object identity, per wire
 * option: a message's `variant` names how its reasoning is sent, or that it is not), as UTF-8
 * bytes, and a request's body is those bytes put together, sent as they are. A message becomes one
 * or more items of the body's list (`field`): one chat message (chat completions), or the input
 * items of the Responses API (its reasoning, its text, each of its tool calls).
 */
const COMMA = Buffer.from(",");

export class WireBody {
  private readonly cache = new WeakMap<ChatMessage, { variant: string; json: Buffer }>();
  /** Stands in for the messages while the rest of the body is serialised. */
  private readonly slot = `patchloop-messages-${randomBytes(8).toString("hex")}`;

  constructor(
    private readonly toItems: (m: ChatMessage, variant: string) => unknown[],
    private readonly field: "messages" | "input" = "messages",
  ) {}

  /** The message's items as JSON, comma-separated (empty when it has none). */
  private messageJson(m: ChatMessage, variant: string): Buffer {
    const hit = this.cache.get(m);
    if (hit && hit.variant === variant) return hit.json;
    const json = Buffer.from(
      this.toItems(m, variant)
        .map((item) => JSON.stringify(item))
        .join(","),
    );
    this.cache.set(m, { variant, json });
    return json;
  }

  /** `fields` with the messages' items as its `field` list (message i as `variants[i]`), as UTF-8 JSON bytes. */
  bytes(fields: Record<string, unknown>, messages: ChatMessage[], variants: readonly string[]): Buffer {
    const head = JSON.stringify({ ...fields, [this.field]: this.slot });
    const at = head.indexOf(`"${this.slot}"`);
    const parts: Buffer[] = [Buffer.from(`${head.slice(0, at)}[`)];
    let first = true;
    messages.forEach((m, i) => {
      const json = this.messageJson(m, variants[i]);
      if (json.length === 0) return;
      if (!first) parts.push(COMMA);
      parts.push(json);
      first = false;
    });
    parts.push(Buffer.from(`]${head.slice(at + this.slot.length + 2)}`));
    return Buffer.concat(parts);
  }
}
