import { describe, expect, it } from "vitest";
import { PromptRenderer } from "../../../src/models/gguf/prompt.js";
import type { ChatMessage } from "../../../src/models/types.js";

const CONVERSATION: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  {
    role: "user",
    content: [
      { type: "text", text: "List " },
      { type: "text", text: "files." },
    ],
  },
  {
    role: "assistant",
    content: null,
    reasoning: "ls will do",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command": "ls"}' } },
    ],
    extra: { step: 1 },
  },
  { role: "tool", tool_call_id: "call_1", content: "a.txt" },
];

describe("the embedded runtime's prompt", () => {
  it("is ChatML for a file without a chat template, with tool calls as JSON and no bookkeeping", () => {
    const r = new PromptRenderer({
      template: null,
      bosToken: "",
      eosToken: "",
      kwargs: {},
      keepReasoning: false,
    });
    expect(r.render(CONVERSATION)).toBe(
      "<|im_start|>system\nBe brief.<|im_end|>\n" +
        "<|im_start|>user\nList files.<|im_end|>\n" +
        '<|im_start|>assistant\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call><|im_end|>\n' +
        "<|im_start|>tool\na.txt<|im_end|>\n" +
        "<|im_start|>assistant\n",
    );
  });

  it("gives the model's template the tools, the special tokens, its kwargs and, with keep, the reasoning", () => {
    const template = [
      "{{ bos_token }}{% if tools %}{% for t in tools %}[{{ t.type }} {{ t.function.name }}: {{ t.function.parameters | tojson }}]{% endfor %}{% endif %}",
      "{% for m in messages %}{{ m.role }}={% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}",
      "{% if m.tool_calls %}{{ m.tool_calls[0].function.arguments.command }}{% else %}{{ m.content }}{% endif %};{% endfor %}",
      "{% if add_generation_prompt %}assistant{% if enable_thinking is false %}<think></think>{% endif %}{% endif %}{{ eos_token }}",
    ].join("");
    const r = new PromptRenderer({
      template,
      bosToken: "<s>",
      eosToken: "</s>",
      kwargs: { enable_thinking: false },
      keepReasoning: true,
    });
    const tools = [{ name: "bash", description: "run", parameters: { type: "object" } }];
    expect(r.render(CONVERSATION, tools)).toBe(
      '<s>[function bash: {"type": "object"}]system=Be brief.;user=List files.;assistant=<think>ls will do</think>ls;tool=a.txt;assistant<think></think></s>',
    );
    const dropped = new PromptRenderer({
      template,
      bosToken: "",
      eosToken: "",
      kwargs: {},
      keepReasoning: false,
    });
    expect(dropped.render(CONVERSATION)).toBe(
      "system=Be brief.;user=List files.;assistant=ls;tool=a.txt;assistant",
    );
  });
});
