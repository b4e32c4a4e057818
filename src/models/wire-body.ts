import { randomBytes } from "node:crypto";
import type { ChatMessage } from "./types.js";

/**
 * The JSON text of a chat-completions request, made without re-serialising the messages an earlier
 * request already sent. The history layer (src/agent/history/) hands over the same object for an
 * unchanged message at every step, so each message's wire JSON is made once and kept (by object
 * identity, per wire option: `variant` names the reasoning field sent back), as UTF-8 bytes, and a
 * request's body is those bytes put together, sent as they are.
 */
const COMMA = Buffer.from(",");

export class WireBody {
  private readonly cache = new WeakMap<ChatMessage, { variant: string; json: Buffer }>();
  /** Stands in for the messages while the rest of the body is serialised. */
  private readonly slot = `patchloop-messages-${randomBytes(8).toString("hex")}`;

  constructor(private readonly toWire: (m: ChatMessage) => unknown) {}

  private messageJson(m: ChatMessage, variant: string): Buffer {
    const hit = this.cache.get(m);
    if (hit && hit.variant === variant) return hit.json;
    const json = Buffer.from(JSON.stringify(this.toWire(m)));
    this.cache.set(m, { variant, json });
    return json;
  }

  /** `fields` (messages left out) with `messages` at their place, as UTF-8 JSON bytes. */
  bytes(fields: Record<string, unknown>, messages: ChatMessage[], variant: string): Buffer {
    const head = JSON.stringify({ ...fields, messages: this.slot });
    const at = head.indexOf(`"${this.slot}"`);
    const parts: Buffer[] = [Buffer.from(`${head.slice(0, at)}[`)];
    messages.forEach((m, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(this.messageJson(m, variant));
    });
    parts.push(Buffer.from(`]${head.slice(at + this.slot.length + 2)}`));
    return Buffer.concat(parts);
  }
}
