/** Browser code (see dom.ts): one trajectory — prompts, steps, patch, evaluation. */

import type {
  EvalResult,
  ObservationView,
  PromptView,
  StepView,
  TrajectoryResponse,
} from "../view/view-model.js";
import { promptTokenChart } from "./charts.js";
import { renderDiff } from "./diff.js";
import { badge, el, fmtCost, fmtNum, fmtSeconds, resolvedBadge, statusBadge } from "./dom.js";

/** A collapsible prompt with its role and length in characters. */
export function promptBlock(p: PromptView, open: boolean): HTMLElement {
  const details = el(
    "details",
    { class: "prompt", "data-role": p.role },
    el("summary", null, `${p.role.toUpperCase()}${p.note ? ` (${p.note})` : ""} · ${fmtNum(p.chars)} chars`),
    el("pre", { class: "text" }, p.text),
  );
  if (open) details.setAttribute("open", "");
  return details;
}

export function observationBlock(o: ObservationView): HTMLElement {
  const classes = ["block", "observation"];
  if (o.formatError) classes.push("format-error");
  if (o.timedOut) classes.push("timed-out");
  const head = el("div", { class: "block-head" }, "OBSERVATION");
  if (o.returncode !== null)
    head.append(badge(`exit ${o.returncode}`, o.returncode === 0 ? "muted" : "warn"));
  if (o.formatError) head.append(badge("FORMAT ERROR", "bad"));
  if (o.timedOut) head.append(badge("TIMED OUT", "bad"));
  return el("div", { class: classes.join(" ") }, head, el("pre", { class: "text" }, o.text));
}

export function stepBlock(s: StepView): HTMLElement {
  const head = el("h3", null, `Step ${s.index}`);
  const tokens = [
    s.prompt_tokens !== null ? `${fmtNum(s.prompt_tokens)} prompt` : null,
    s.completion_tokens !== null ? `${fmtNum(s.completion_tokens)} completion` : null,
  ].filter((t) => t !== null);
  if (tokens.length) head.append(el("span", { class: "tokens" }, `${tokens.join(" / ")} tokens`));
  if (s.cost !== null) head.append(el("span", { class: "tokens" }, fmtCost(s.cost)));
  if (s.finishReason && s.finishReason !== "stop" && s.finishReason !== "tool_calls") {
    head.append(badge(`finish: ${s.finishReason}`, "warn"));
  }
  const section = el("section", { class: "step", id: `step-${s.index}`, "data-step": String(s.index) }, head);
  if (s.reasoning) {
    // Collapsed: the thinking can be long, the answer and the actions are what to read first.
    section.append(
      el(
        "details",
        { class: "block reasoning" },
        el("summary", { class: "block-head" }, `REASONING · ${fmtNum(s.reasoning.length)} chars`),
        el("pre", { class: "text" }, s.reasoning),
      ),
    );
  }
  if (s.thought) {
    section.append(
      el(
        "div",
        { class: "block thought" },
        el("div", { class: "block-head" }, "THOUGHT"),
        el("pre", { class: "text" }, s.thought),
      ),
    );
  }
  for (const a of s.actions) {
    section.append(
      el(
        "div",
        { class: "block action" },
        el("div", { class: "block-head" }, a.tool ? `ACTION · ${a.tool}` : "ACTION"),
        el("pre", { class: "text" }, a.text),
      ),
    );
  }
  if (s.actions.length === 0) section.append(el("div", { class: "block action none" }, "no action parsed"));
  for (const o of s.observations) section.append(observationBlock(o));
  if (s.observations.some((o) => o.formatError || o.timedOut)) section.classList.add("flagged");
  return section;
}

/** A link to a raw file under the served folder. */
export function fileLink(path: string, text: string): HTMLElement {
  return el("a", { href: `/files/${path.split("/").map(encodeURIComponent).join("/")}` }, text);
}

export function evalBlock(ev: EvalResult | null, search: string | null = null): HTMLElement {
  const box = el("section", { class: "eval", id: "evaluation" }, el("h2", null, "Evaluation"));
  if (!ev) {
    box.append(
      el("p", { class: "muted" }, `No evaluation report covers this instance${search ? `: ${search}` : "."}`),
    );
    return box;
  }
  box.append(
    el("p", null, resolvedBadge(ev.resolved, ev.outcome), " from ", fileLink(ev.reportFile, ev.reportFile)),
  );
  if (ev.detail) box.append(el("p", { class: ev.outcome ? "error-text" : "muted" }, ev.detail));
  if (ev.files.length) {
    const links: Array<Node | string> = [];
    for (const f of ev.files) {
      if (links.length) links.push(" · ");
      links.push(fileLink(f.path, f.label));
    }
    box.append(el("p", { class: "eval-files" }, ...links));
  }
  if (ev.patchApplied === false) box.append(el("p", { class: "error-text" }, "The patch did not apply."));
  const list = (title: string, names: string[], passed: number) => {
    box.append(el("h3", null, `${title}: ${names.length} failing, ${passed} passing`));
    if (names.length)
      box.append(el("ul", { class: "failing" }, ...names.map((n) => el("li", null, el("code", null, n)))));
  };
  const f2p = ev.failToPassFailures.length + ev.failToPassPassed;
  const p2p = ev.passToPassFailures.length + ev.passToPassPassed;
  if (f2p + p2p === 0) box.append(el("p", { class: "muted" }, "The report lists no test results."));
  else {
    list("FAIL_TO_PASS", ev.failToPassFailures, ev.failToPassPassed);
    list("PASS_TO_PASS", ev.passToPassFailures, ev.passToPassPassed);
  }
  return box;
}

/** A button that scrolls to a step (the URL hash is the router's, so no #step anchors). */
export function jumpButton(index: number): HTMLElement {
  const button = el("button", { type: "button", class: "link", "data-jump": String(index) }, `#${index}`);
  button.addEventListener("click", () => document.getElementById(`step-${index}`)?.scrollIntoView());
  return button;
}

/** The whole trajectory page. */
export function renderTrajectory(data: TrajectoryResponse): HTMLElement {
  const v = data.view;
  const facts = el("dl", { class: "facts" });
  const addFact = (k: string, value: string) => facts.append(el("dt", null, k), el("dd", null, value));
  addFact("format", v.source);
  addFact("model", v.model ?? "—");
  addFact("steps", String(v.steps.length));
  addFact("API calls", fmtNum(v.api_calls));
  addFact("tokens", `${fmtNum(v.prompt_tokens)} prompt / ${fmtNum(v.completion_tokens)} completion`);
  addFact("cost", fmtCost(v.cost));
  addFact("wall time", fmtSeconds(v.wallSeconds));
  const flagged = v.steps.filter((s) => s.observations.some((o) => o.formatError || o.timedOut));
  const jump = flagged.length
    ? el("p", { class: "jump" }, "flagged steps: ", ...flagged.map((s) => jumpButton(s.index)))
    : null;
  const page = el(
    "div",
    { class: "trajectory" },
    el(
      "h1",
      null,
      v.instanceId ?? data.file,
      data.attempt === undefined ? null : el("span", { class: "attempt-no" }, ` · attempt ${data.attempt}`),
      " ",
      statusBadge(v.exitStatus),
      " ",
      resolvedBadge(data.eval?.resolved ?? null, data.eval?.outcome ?? null),
    ),
    v.exitMessage ? el("p", { class: "muted" }, v.exitMessage) : null,
    el(
      "p",
      null,
      el(
        "a",
        { href: `/files/${data.file.split("/").map(encodeURIComponent).join("/")}` },
        `raw file: ${data.file}`,
      ),
    ),
    facts,
    promptTokenChart(v.steps),
    jump,
  );
  if (v.system) page.append(promptBlock(v.system, true));
  if (v.firstUser) page.append(promptBlock(v.firstUser, true));
  for (const p of v.preamble) page.append(promptBlock(p, false));
  for (const s of v.steps) page.append(stepBlock(s));
  page.append(
    el(
      "section",
      { class: "patch", id: "patch" },
      el("h2", null, `Final patch (${fmtNum(v.submission.length)} chars)`),
      renderDiff(v.submission),
    ),
  );
  page.append(evalBlock(data.eval, data.evalSearch ?? null));
  return page;
}
