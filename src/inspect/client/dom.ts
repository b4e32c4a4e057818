/**
 * Browser code of the viewer, part 1: DOM helpers. Every function in src/inspect/client/ runs in the
 * page, not in Node: page-script.ts sends their compiled source text to the browser, so a function
 * may use only browser globals, its parameters and other client functions (by name), never imports
 * of values or module-level constants. All text from trajectories reaches the page through text
 * nodes (never innerHTML), which is what keeps model output inert.
 */

type Child = Node | string | number | null | undefined | false;

/** Creates an HTML element; attributes by setAttribute, children as nodes or text nodes. */
export function el(tag: string, attrs: Record<string, string> | null, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) node.setAttribute(key, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Creates an SVG element with attributes and children. */
export function svgEl(tag: string, attrs: Record<string, string | number>, ...children: Child[]): SVGElement {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A number with thousands separators, or an em dash for unknown. */
export function fmtNum(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : n.toLocaleString("en-US");
}

export function fmtCost(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : `$${n.toFixed(n >= 1 ? 2 : 4)}`;
}

export function fmtSeconds(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  if (n < 60) return `${n.toFixed(1)} s`;
  const m = Math.floor(n / 60);
  return `${m}m ${String(Math.round(n - 60 * m)).padStart(2, "0")}s`;
}

/** GETs JSON; a non-2xx answer becomes an Error carrying the server's message. */
export async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { headers: { accept: "application/json" } });
  const body = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}: ${body.slice(0, 500)}`);
  return JSON.parse(body);
}

/** Replaces the children of `target` with `nodes`. */
export function mount(target: HTMLElement, ...nodes: Node[]): void {
  target.replaceChildren(...nodes);
}

/** A small coloured label. */
export function badge(text: string, kind: string): HTMLElement {
  return el("span", { class: `badge badge-${kind}` }, text);
}

/** The badge for an exit status (`Submitted` green, errors red, limits amber). */
export function statusBadge(status: string | null): HTMLElement {
  if (status === null) return badge("(none)", "muted");
  const lower = status.toLowerCase();
  const kind = lower.startsWith("submitted")
    ? "ok"
    : /error|interrupt/.test(lower)
      ? "bad"
      : /exceeded|limit|exit_/.test(lower)
        ? "warn"
        : "muted";
  return badge(status, kind);
}

/** The badge of an evaluation: resolved, unresolved, why it was not graded, or not evaluated. */
export function resolvedBadge(resolved: boolean | null, outcome: string | null = null): HTMLElement {
  if (resolved === null && outcome)
    return badge(outcome, outcome === "environment mismatch" ? "warn" : "bad");
  if (resolved === null) return badge("not evaluated", "muted");
  return resolved ? badge("resolved", "ok") : badge("unresolved", "bad");
}
