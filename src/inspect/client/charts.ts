/** Browser code (see dom.ts): inline SVG bar charts, one `rect.bar` per datum. */

import type { BarDatum, StepView } from "../view/view-model.js";
import { el, svgEl } from "./dom.js";

/**
 * A horizontal bar chart: label, bar scaled to `max` (default: the largest value), caption.
 * `chartId` becomes the figure's data-chart attribute; an empty list shows `emptyText` instead.
 */
export function barChart(
  chartId: string,
  title: string,
  data: BarDatum[],
  max: number | null,
  emptyText: string,
): HTMLElement {
  const figure = el("figure", { class: "chart", "data-chart": chartId }, el("figcaption", null, title));
  if (data.length === 0) {
    figure.append(el("p", { class: "muted" }, emptyText));
    return figure;
  }
  const rowH = 22;
  const labelW = 170;
  const barW = 190;
  const width = labelW + barW + 60;
  const top = max ?? Math.max(1, ...data.map((d) => d.value));
  const svg = svgEl("svg", {
    width,
    height: data.length * rowH + 4,
    viewBox: `0 0 ${width} ${data.length * rowH + 4}`,
    role: "img",
  });
  data.forEach((d, i) => {
    const y = i * rowH + 2;
    const w = top > 0 ? Math.round((barW * d.value) / top) : 0;
    const label = d.label.length > 26 ? `${d.label.slice(0, 25)}…` : d.label;
    svg.append(
      svgEl("text", { x: labelW - 6, y: y + 15, "text-anchor": "end", class: "chart-label" }, label),
      svgEl("rect", { x: labelW, y: y + 3, width: barW, height: rowH - 6, class: "track", rx: 3 }),
      svgEl(
        "rect",
        { x: labelW, y: y + 3, width: w, height: rowH - 6, class: "bar", rx: 3, "data-label": d.label },
        svgEl("title", {}, `${d.label}: ${d.caption}`),
      ),
      svgEl("text", { x: labelW + barW + 6, y: y + 15, class: "chart-caption" }, d.caption),
    );
  });
  figure.append(svg);
  return figure;
}

/** A vertical column chart (for the steps histogram): one column per datum, labels below. */
export function columnChart(
  chartId: string,
  title: string,
  data: BarDatum[],
  emptyText: string,
): HTMLElement {
  const figure = el("figure", { class: "chart", "data-chart": chartId }, el("figcaption", null, title));
  if (data.length === 0) {
    figure.append(el("p", { class: "muted" }, emptyText));
    return figure;
  }
  const colW = Math.max(18, Math.min(44, Math.floor(400 / data.length)));
  const plotH = 120;
  const width = data.length * colW + 20;
  const height = plotH + 40;
  const top = Math.max(1, ...data.map((d) => d.value));
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  data.forEach((d, i) => {
    const x = 10 + i * colW;
    const h = Math.round((plotH * d.value) / top);
    svg.append(
      svgEl(
        "rect",
        {
          x: x + 2,
          y: 14 + plotH - h,
          width: colW - 4,
          height: h,
          class: "bar",
          rx: 2,
          "data-label": d.label,
        },
        svgEl("title", {}, `${d.label} steps: ${d.caption}`),
      ),
      svgEl(
        "text",
        { x: x + colW / 2, y: 10 + plotH - h, "text-anchor": "middle", class: "chart-caption" },
        d.caption,
      ),
      svgEl(
        "text",
        { x: x + colW / 2, y: plotH + 30, "text-anchor": "middle", class: "chart-label" },
        d.label,
      ),
    );
  });
  figure.append(svg);
  return figure;
}

/**
 * Prompt tokens per step as columns, the part the server reported as cached filled darker, and
 * patchloop's count of the prefix shared with the previous request as a tick (a step below its tick
 * had earlier messages changed, e.g. by history masking). Null when no step records prompt tokens.
 */
export function promptTokenChart(steps: StepView[]): HTMLElement | null {
  const data = steps.filter((s) => s.prompt_tokens !== null);
  if (data.length === 0) return null;
  const figure = el(
    "figure",
    { class: "chart", "data-chart": "prompt-tokens" },
    el("figcaption", null, "Prompt tokens per step"),
  );
  const colW = Math.max(2, Math.min(14, Math.floor(720 / data.length)));
  const plotH = 120;
  const width = data.length * colW + 60;
  const top = Math.max(1, ...data.map((s) => s.prompt_tokens ?? 0));
  const y = (v: number) => 8 + plotH - Math.round((plotH * v) / top);
  const svg = svgEl("svg", { width, height: plotH + 30, viewBox: `0 0 ${width} ${plotH + 30}`, role: "img" });
  svg.append(
    svgEl("text", { x: 0, y: 14, class: "chart-caption" }, fmtTokenCount(top)),
    svgEl("text", { x: 0, y: plotH + 8, class: "chart-caption" }, "0"),
  );
  data.forEach((s, i) => {
    const x = 50 + i * colW;
    const prompt = s.prompt_tokens ?? 0;
    const tip = [
      `step ${s.index}: ${prompt} prompt tokens`,
      s.cached_tokens !== undefined ? `${s.cached_tokens} cached by the server` : null,
      s.sharedPrefixTokens !== undefined ? `${s.sharedPrefixTokens} shared with the previous request` : null,
    ]
      .filter((t) => t !== null)
      .join(", ");
    svg.append(
      svgEl(
        "rect",
        {
          x,
          y: y(prompt),
          width: Math.max(1, colW - 1),
          height: plotH + 8 - y(prompt),
          class: "bar prompt",
          "data-step": s.index,
        },
        svgEl("title", {}, tip),
      ),
    );
    if (s.cached_tokens !== undefined)
      svg.append(
        svgEl("rect", {
          x,
          y: y(s.cached_tokens),
          width: Math.max(1, colW - 1),
          height: plotH + 8 - y(s.cached_tokens),
          class: "bar cached",
          "data-step": s.index,
        }),
      );
    if (s.sharedPrefixTokens !== undefined)
      svg.append(
        svgEl("line", {
          x1: x,
          x2: x + Math.max(1, colW - 1),
          y1: y(s.sharedPrefixTokens),
          y2: y(s.sharedPrefixTokens),
          class: "shared",
          "data-step": s.index,
        }),
      );
  });
  svg.append(
    svgEl("text", { x: 50, y: plotH + 24, class: "chart-label" }, `steps 1–${data.at(-1)?.index ?? 0}`),
  );
  figure.append(
    svg,
    el(
      "p",
      { class: "muted chart-legend" },
      "column: prompt tokens · dark: cached by the server · tick: prefix shared with the previous request",
    ),
  );
  return figure;
}

/** A token count for an axis label: 12k, 950. */
export function fmtTokenCount(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n);
}
