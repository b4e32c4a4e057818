import { asNumber, asRecord, asString, contentText, type JsonRecord } from "./json-read.js";
import { promptView, type StepView, type TrajectoryView } from "./view/view-model.js";

const TIMEOUT_TEXT = /EXECUTION TIMED OUT|command timed out/i;

function prompts(history: JsonRecord[]): Pick<TrajectoryView, "system" | "firstUser" | "preamble"> {
  const out: Pick<TrajectoryView, "system" | "firstUser" | "preamble"> = {
    system: null,
    firstUser: null,
    preamble: [],
  };
  for (const msg of history) {
    const role = asString(msg.role) ?? "(no role)";
    if (role === "assistant") break;
    const text = contentText(msg.content);
    if (msg.is_demo === true) out.preamble.push(promptView(role, text, "demonstration"));
    else if (role === "system" && !out.system && !out.firstUser) out.system = promptView(role, text);
    else if (role === "user" && !out.firstUser) out.firstUser = promptView(role, text);
    else out.preamble.push(promptView(role, text));
  }
  return out;
}

function step(index: number, entry: JsonRecord): StepView {
  const action = (asString(entry.action) ?? "").replace(/\s+$/, "");
  const observation = asString(entry.observation) ?? contentText(entry.observation);
  return {
    index,
    thought: (asString(entry.thought) ?? asString(entry.response) ?? "").trim(),
    actions: action ? [{ tool: null, text: action }] : [],
    observations: [
      { text: observation, returncode: null, timedOut: TIMEOUT_TEXT.test(observation), formatError: false },
    ],
    prompt_tokens: null,
    completion_tokens: null,
    cost: null,
    finishReason: null,
  };
}

/**
 * Normalises a SWE-agent `.traj` file: steps come from `trajectory` (thought / action / observation),
 * the prompts from `history` up to the first reply (demonstrations marked as such), totals from
 * `info.model_stats` (`tokens_sent`, `tokens_received`, `instance_cost`, `api_calls`).
 */
export function normalizeSweAgent(doc: JsonRecord): TrajectoryView {
  const info = asRecord(doc.info);
  const stats = asRecord(info?.model_stats);
  const history = (Array.isArray(doc.history) ? doc.history : []).map((m) => asRecord(m) ?? {});
  const entries = (Array.isArray(doc.trajectory) ? doc.trajectory : []).map((m) => asRecord(m) ?? {});
  return {
    source: "swe-agent",
    instanceId: null,
    exitStatus: asString(info?.exit_status),
    exitMessage: null,
    submission: asString(info?.submission) ?? "",
    model: null,
    api_calls: asNumber(stats?.api_calls),
    prompt_tokens: asNumber(stats?.tokens_sent),
    completion_tokens: asNumber(stats?.tokens_received),
    cost: asNumber(stats?.instance_cost),
    wallSeconds: null,
    ...prompts(history),
    steps: entries.map((entry, i) => step(i + 1, entry)),
  };
}
