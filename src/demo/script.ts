import type { ScriptedResponse } from "../models/scripted.js";
import { DEMO_REPO } from "./repo.js";

const bash = (command: string) => ({ name: "bash", arguments: { command } });
const editor = (args: Record<string, unknown>) => ({ name: "str_replace_editor", arguments: args });

/** The replies recorded in assets/demo/demo.traj.json (regenerate with `node dist/src/demo/record.js`). */
export const DEMO_REPLIES: ScriptedResponse[] = [
  {
    content: "I'll start by looking at the layout of the repository.",
    toolCalls: [bash("ls -R src test && cat package.json")],
    usage: { prompt_tokens: 612, completion_tokens: 41 },
  },
  {
    content: "The statistics live in src/stats.js. Let me read it.",
    toolCalls: [editor({ command: "view", path: `${DEMO_REPO}/src/stats.js` })],
    usage: { prompt_tokens: 790, completion_tokens: 52 },
  },
  {
    content:
      "median() copies and sorts with the default comparator, which compares numbers as strings. Let me confirm with the example from the issue.",
    toolCalls: [bash(`node -e 'import("./src/stats.js").then((m) => console.log(m.median([2, 10, 3])))'`)],
    usage: { prompt_tokens: 1104, completion_tokens: 77 },
  },
  {
    content: "Confirmed: it prints 2. The fix is a numeric comparator.",
    toolCalls: [
      editor({
        command: "str_replace",
        path: `${DEMO_REPO}/src/stats.js`,
        old_str: "const sorted = [...values].sort();",
        new_str: "const sorted = [...values].sort((a, b) => a - b);",
      }),
    ],
    usage: { prompt_tokens: 1230, completion_tokens: 88 },
  },
  {
    content: "Now the example, an even-length case with negatives, and the existing tests.",
    toolCalls: [
      bash(
        `node -e 'import("./src/stats.js").then((m) => console.log(m.median([2, 10, 3]), m.median([100, 9, 20, -1])))' && npm test --silent 2>&1 | tail -n 8`,
      ),
    ],
    usage: { prompt_tokens: 1445, completion_tokens: 95 },
  },
  {
    content: "median() now sorts numerically and the tests pass. Submitting.",
    toolCalls: [bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached")],
    usage: { prompt_tokens: 1702, completion_tokens: 40 },
  },
];
