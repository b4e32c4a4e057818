import { splitChat } from "./chat-steps.js";
import { asNumber, asRecord, asString, contentText, type JsonRecord, sumPresent } from "./json-read.js";
import type { TrajectorySource, TrajectoryView } from "./view/view-model.js";

/** Marker lines mini-swe-agent's submit command prints before the final output. */
const SUBMIT_MARKERS = ["COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT"];

function modelFromConfig(config: unknown): string | null {
  const model = asRecord(asRecord(config)?.model);
  return asString(model?.model_name) ?? asString(model?.name);
}

/**
 * Normalises a chat-message trajectory: patchloop-1, mini-swe-agent's `{info, messages}` objects
 * (1 and 1.1), or its older plain message list (`info` null). For the plain list, which records no
 * exit status, "Submitted" and the submission are derived from a last command that printed the
 * submit marker; everything else stays null.
 */
export function normalizeChat(
  source: TrajectorySource,
  info: JsonRecord | null,
  messages: JsonRecord[],
): TrajectoryView {
  const split = splitChat(messages);
  const stats = asRecord(info?.model_stats);
  const timing = asRecord(info?.timing);
  const exitExtra = split.exitExtra;
  const view: TrajectoryView = {
    source,
    instanceId: asString(info?.instance_id),
    exitStatus: asString(info?.exit_status) ?? asString(exitExtra?.exit_status),
    exitMessage: asString(info?.exit_message),
    submission: asString(info?.submission) ?? asString(exitExtra?.submission) ?? "",
    model: asString(info?.model_name) ?? modelFromConfig(info?.config),
    api_calls: asNumber(stats?.api_calls),
    prompt_tokens: asNumber(stats?.prompt_tokens) ?? sumPresent(split.steps.map((s) => s.prompt_tokens)),
    completion_tokens:
      asNumber(stats?.completion_tokens) ?? sumPresent(split.steps.map((s) => s.completion_tokens)),
    cost:
      asNumber(stats?.cost) ?? asNumber(stats?.instance_cost) ?? sumPresent(split.steps.map((s) => s.cost)),
    wallSeconds: asNumber(timing?.wall_seconds),
    system: split.system,
    firstUser: split.firstUser,
    preamble: split.preamble,
    steps: split.steps,
  };
  if (source === "mini-swe-agent-list") deriveListExit(view, messages);
  return view;
}

function deriveListExit(view: TrajectoryView, messages: JsonRecord[]): void {
  const last = view.steps.at(-1);
  const lastMessage = messages.at(-1);
  if (!last || !lastMessage || lastMessage.role === "assistant") return;
  const submitted = last.actions.some((a) => SUBMIT_MARKERS.some((marker) => a.text.includes(marker)));
  if (!submitted) return;
  view.exitStatus = "Submitted";
  view.exitMessage =
    "derived: the last command printed the submit marker (this format records no exit status)";
  view.submission = contentText(lastMessage.content);
}
