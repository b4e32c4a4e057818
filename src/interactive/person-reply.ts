import type { Protocol } from "../agent/protocols/types.js";
import type { ChatMessage, ModelResult } from "../models/types.js";
import { commandOf } from "./action-view.js";

/**
 * A command the person typed (human mode), as an assistant reply the protocol reads as that one
 * shell command: a bash tool call (tool_calls) or one fenced block (backticks; an XML-style tag for
 * a mini-swe-agent `action_regex`). Null when no form parses to exactly that command (an
 * action_regex of another shape), so human mode is not available with that config.
 */
export function personMessage(
  protocol: Protocol,
  tag: string,
  command: string,
  n: number,
): ChatMessage | null {
  const candidates: ChatMessage[] =
    protocol.name === "tool_calls"
      ? [
          {
            role: "assistant",
            content: "",
            tool_calls: [
              {
                id: `person-${n}`,
                type: "function",
                function: { name: "bash", arguments: JSON.stringify({ command }) },
              },
            ],
          },
        ]
      : [
          { role: "assistant", content: `\`\`\`${tag}\n${command}\n\`\`\`` },
          { role: "assistant", content: `<${tag}>\n${command}\n</${tag}>` },
          { role: "assistant", content: `\`\`\`bash\n${command}\n\`\`\`` },
        ];
  for (const m of candidates) {
    const parsed = protocol.parse(m);
    if (parsed.ok && parsed.actions.length === 1 && commandOf(parsed.actions[0]) === command) return m;
  }
  return null;
}

/** The model result that stands for the person's command: no tokens, no cost, what they typed as the raw body. */
export function personResult(message: ChatMessage, command: string): Extract<ModelResult, { ok: true }> {
  return {
    ok: true,
    message,
    finishReason: "stop",
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    cost: 0,
    raw: { typed_by_person: command },
    tries: 0,
  };
}
