import { randomBytes } from "node:crypto";
import type { ChatMessage } from "./types.js";

/**
 * The JSON text of a chat-completions request, made without re-serialising the messages an earlier
 * request already sent. The history layer (src/agent/history/) hands over the same object for an
 * unchanged message at every step, so each message's wire JSON is made once and kept (by object
 * identity, per wire option: `variant` names the reasoning field sent back). The SDK sends a string
 * body with a content-type header as it is.
 */
export class WireBody {
  private readonly cache = new WeakMap<ChatMessage, { variant: string; json: string }>();
  /** Stands in for the messages while the rest of the body is serialised. */
  private readonly slot = `patchloop-messages-${randomBytes(8).toString("hex")}`;

  constructor(private readonly toWire: (m: ChatMessage) => unknown) {}

  private messageJson(m: ChatMessage, variant: string): string {
    const hit = this.cache.get(m);
    if (hit && hit.variant === variant) return hit.json;
    const json = JSON.stringify(this.toWire(m));
    this.cache.set(m, { variant, json });
    return json;
  }

  /** `fields` (messages left out) with `messages` at their place, as JSON text. */
  text(fields: Record<string, unknown>, messages: ChatMessage[], variant: string): string {
    const head = JSON.stringify({ ...fields, messages: this.slot });
    const list = `[${messages.map((m) => this.messageJson(m, variant)).join(",")}]`;
    const at = head.indexOf(`"${this.slot}"`);
    return head.slice(0, at) + list + head.slice(at + this.slot.length + 2);
  }
}
