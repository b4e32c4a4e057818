/** Browser code (see dom.ts): hash routing between the overview (`#/`) and a trajectory (`#/t/REL`). */
import type { OverviewResponse, RunOverview, TrajectoryResponse } from "../view-model.js";
import { el, getJson, mount } from "./dom.js";
import { renderOverview } from "./overview.js";
import { renderTrajectory } from "./trajectory.js";

/** Loads and shows the view the URL hash names; errors are shown as text on the page. */
export async function showRoute(app: HTMLElement, overview: OverviewResponse, reuse: boolean): Promise<void> {
  const hash = location.hash;
  let file: string | null = null;
  if (overview.mode === "trajectory") file = overview.file;
  else if (hash.startsWith("#/t/")) file = decodeURIComponent(hash.slice(4));
  if (file === null) {
    const fresh = reuse ? overview : ((await getJson("/api/overview")) as OverviewResponse);
    const run = (fresh as { overview: RunOverview }).overview;
    mount(app, renderOverview(run));
    document.title = `${run.name} · patchloop inspect`;
    return;
  }
  const data = (await getJson(`/api/trajectory?path=${encodeURIComponent(file)}`)) as TrajectoryResponse;
  const back = overview.mode === "run" ? el("p", null, el("a", { href: "#/" }, "← run overview")) : null;
  mount(app, ...[back, renderTrajectory(data)].filter((n): n is HTMLElement => n !== null));
  document.title = `${data.view.instanceId ?? file} · patchloop inspect`;
  window.scrollTo(0, 0);
}

export async function plMain(): Promise<void> {
  const app = document.getElementById("app")!;
  const show = async (overview: OverviewResponse, reuse: boolean) => {
    app.setAttribute("aria-busy", "true");
    try {
      await showRoute(app, overview, reuse);
    } catch (err) {
      mount(app, el("div", { class: "error-box" }, `Could not load this view: ${(err as Error).message}`));
    }
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
