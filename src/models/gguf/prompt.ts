import { Template } from "@huggingface/jinja";
import type { ChatMessage, ToolCall, ToolSpec } from "../types.js";

/**
 * The prompt text of a conversation, rendered with the model's own chat template (the GGUF file's
 * `tokenizer.chat_template`, as its publisher wrote it) the way Hugging Face's
 * `apply_chat_template` renders it: `messages` in the OpenAI shape, `tools` as function specs,
 * `add_generation_prompt`, the special tokens' texts and `model.model_kwargs.chat_template_kwargs`.
 * A file without a template gets ChatML.
 */
export const CHATML_TEMPLATE = [
  "{% for message in messages %}<|im_start|>{{ message.role }}\n",
  "{% if message.content %}{{ message.content }}{% endif %}",
  "{% if message.tool_calls %}{% for call in message.tool_calls %}<tool_call>\n",
  '{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}\n</tool_call>{% endfor %}{% endif %}',
  "<|im_end|>\n{% endfor %}",
  "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
].join("");

export interface PromptParts {
  /** The chat template's text (null: ChatML). */
  template: string | null;
  bosToken: string;
  eosToken: string;
  /** `model.model_kwargs.chat_template_kwargs`. */
  kwargs: Record<string, unknown>;
  /** Send earlier reasoning back as `reasoning_content` (`model.reasoning_history: keep`). */
  keepReasoning: boolean;
}

/** A compiled template and what it is rendered with; one per loaded model. */
export class PromptRenderer {
  private readonly template: Template;

  constructor(private readonly parts: PromptParts) {
    this.template = new Template(parts.template ?? CHATML_TEMPLATE);
  }

  render(messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): string {
    const context: Record<string, unknown> = {
      ...this.parts.kwargs,
      messages: messages.map((m) => this.message(m)),
      add_generation_prompt: true,
      bos_token: this.parts.bosToken,
      eos_token: this.parts.eosToken,
    };
    if (tools && tools.length > 0)
      context.tools = tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
    return this.template.render(context);
  }

  /** A message as templates read it: text content, no bookkeeping. */
  private message(m: ChatMessage): Record<string, unknown> {
    const out: Record<string, unknown> = { role: m.role, content: textContent(m.content) };
    if (m.tool_calls) out.tool_calls = m.tool_calls.map(templateCall);
    if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
    if (m.name) out.name = m.name;
    if (this.parts.keepReasoning && m.role === "assistant" && m.reasoning)
      out.reasoning_content = m.reasoning;
    return out;
  }
}

/**
 * A tool call as chat templates read it: `arguments` as an object (what apply_chat_template takes;
 * templates that also take a string, as Qwen's do, render the object as JSON), the text as it came
 * when it is not a JSON object.
 */
function templateCall(call: ToolCall): Record<string, unknown> {
  let args: unknown = call.function.arguments;
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) args = parsed;
  } catch {
    // not JSON: the text as it came
  }
  return { id: call.id, type: call.type, function: { name: call.function.name, arguments: args } };
}

function textContent(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}
