/** Browser code (see dom.ts): hash routing between the overview (`#/`) and a trajectory (`#/t/REL`). */
import type { RunReport } from "../../report/build.js";
import type { OverviewResponse, RunOverview, TrajectoryResponse } from "../view/view-model.js";
import { el, getJson, mount } from "./dom.js";
import { renderOverview } from "./overview.js";
import { renderReportPanel } from "./report.js";
import { renderTrajectory } from "./trajectory.js";

/** A rendered view: its nodes and the document title to show with it. */
export interface RouteView {
  nodes: HTMLElement[];
  title: string;
}

/** Loads the view the URL hash names (a run folder's overview is re-read each time: runs grow). */
export async function loadRoute(overview: OverviewResponse, reuse: boolean): Promise<RouteView> {
  let file: string | null = null;
  if (overview.mode === "trajectory") file = overview.file;
  else if (location.hash.startsWith("#/t/")) file = decodeURIComponent(location.hash.slice(4));
  if (file === null) {
    const fresh = reuse ? overview : ((await getJson("/api/overview")) as OverviewResponse);
    const run = (fresh as { overview: RunOverview }).overview;
    const nodes: HTMLElement[] = [renderOverview(run)];
    // The run report's tables below the overview; a folder the report cannot read shows none.
    const report = (await getJson("/api/report").catch(() => null)) as RunReport | null;
    if (report) nodes.push(renderReportPanel(report));
    return { nodes, title: `${run.name} · patchloop inspect` };
  }
  const data = (await getJson(`/api/trajectory?path=${encodeURIComponent(file)}`)) as TrajectoryResponse;
  const nodes = [renderTrajectory(data)];
  if (overview.mode === "run") nodes.unshift(el("p", null, el("a", { href: "#/" }, "← run overview")));
  return { nodes, title: `${data.view.instanceId ?? file} · patchloop inspect` };
}

/** Entry point: shows the current route and follows hash changes; only the latest route is shown. */
export async function plMain(): Promise<void> {
  const app = document.getElementById("app")!;
  let latest = 0;
  const show = async (overview: OverviewResponse, reuse: boolean) => {
    const mine = ++latest;
    app.setAttribute("aria-busy", "true");
    let view: RouteView;
    try {
      view = await loadRoute(overview, reuse);
    } catch (err) {
      view = {
        nodes: [el("div", { class: "error-box" }, `Could not load this view: ${(err as Error).message}`)],
        title: "patchloop inspect",
      };
    }
    if (mine !== latest) return;
    mount(app, ...view.nodes);
    document.title = view.title;
    window.scrollTo(0, 0);
    app.setAttribute("aria-busy", "false");
  };
  try {
    const overview = (await getJson("/api/overview")) as OverviewResponse;
    window.addEventListener("hashchange", () => void show(overview, false));
    await show(overview, true);
  } catch (err) {
    mount(
      app,
      el("div", { class: "error-box" }, `Could not reach the viewer's server: ${(err as Error).message}`),
    );
  }
}
