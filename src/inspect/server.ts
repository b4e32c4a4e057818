import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pageHtml, pageScript } from "./assets/page.js";
import { STYLES } from "./assets/styles.js";
import { attemptOfPath } from "./attempts.js";
import type { EvalIndex } from "./eval-reports.js";
import { hostHeaderAllowed, isLoopback, notFound, send, sendJson } from "./http-util.js";
import { loadTrajectoryFile } from "./normalize.js";
import { attemptEvalSearchText, evalFor, evalSearchText, RunFolder } from "./run-folder.js";
import { resolveInside, safeSegments } from "./safe-path.js";
import { type InspectTarget, resolveTarget } from "./target.js";
import type { OverviewResponse, TrajectoryResponse } from "./view/view-model.js";

export interface InspectServerOptions {
  /** A run folder or a trajectory file. */
  path: string;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
}

export interface InspectServer {
  /** e.g. `http://127.0.0.1:8765/`. */
  url: string;
  target: InspectTarget;
  close(): Promise<void>;
}

const EMPTY_EVALS: EvalIndex = { results: new Map(), byAttempt: new Map(), files: [], problems: [] };

/** The rel paths a request may name: anything below a run folder, only the file itself otherwise. */
async function fileFor(target: InspectTarget, segments: string[] | null): Promise<string | null> {
  if (!segments) return null;
  if (target.mode === "trajectory" && (segments.length !== 1 || segments[0] !== target.file)) return null;
  return resolveInside(target.root, segments);
}

class Handler {
  private readonly run: RunFolder | null;
  private readonly script = pageScript();

  constructor(
    private readonly target: InspectTarget,
    private readonly checkHost: boolean,
  ) {
    this.run = target.mode === "run" ? new RunFolder(target.root) : null;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.checkHost && !hostHeaderAllowed(req.headers.host)) {
      return sendJson(res, 403, { error: "this viewer answers only to loopback host names" });
    }
    if (req.method !== "GET" && req.method !== "HEAD") return sendJson(res, 405, { error: "GET only" });
    const raw = req.url ?? "/";
    const query = raw.indexOf("?");
    const pathname = query === -1 ? raw : raw.slice(0, query);
    const params = new URLSearchParams(query === -1 ? "" : raw.slice(query + 1));
    if (pathname === "/" || pathname === "/index.html") {
      const name = this.target.mode === "run" ? this.target.name : this.target.file;
      return send(res, 200, "text/html; charset=utf-8", pageHtml(name));
    }
    if (pathname === "/app.js") return send(res, 200, "text/javascript; charset=utf-8", this.script);
    if (pathname === "/favicon.ico") return send(res, 204, "text/plain", "");
    if (pathname === "/app.css") return send(res, 200, "text/css; charset=utf-8", STYLES);
    if (pathname === "/api/overview") return sendJson(res, 200, await this.overview());
    if (pathname === "/api/trajectory") return this.trajectory(res, params.get("path"));
    if (pathname === "/api/report") return this.report(res);
    if (pathname.startsWith("/files/")) {
      const file = await fileFor(this.target, safeSegments(pathname.slice("/files/".length), true));
      if (!file) return notFound(res);
      return send(res, 200, "text/plain; charset=utf-8", await readFile(file));
    }
    return notFound(res);
  }

  private async overview(): Promise<OverviewResponse> {
    if (this.target.mode === "trajectory") {
      return { mode: "trajectory", name: this.target.file, file: this.target.file };
    }
    return { mode: "run", overview: await this.run!.overview() };
  }

  /** `patchloop report`'s JSON for the run folder (dataset rows only from a local file); 404 for one trajectory. */
  private async report(res: ServerResponse): Promise<void> {
    if (this.target.mode !== "run") return notFound(res);
    const { collectRun } = await import("../report/collect.js");
    const { buildReport } = await import("../report/build.js");
    const { readLeaderboardSnapshot } = await import("../report/leaderboard.js");
    const { readDatasetFile } = await import("../dataset/load.js");
    try {
      const run = await collectRun(this.target.root, async (name) => {
        if (!existsSync(name))
          throw new Error("the viewer reads only a local dataset file; patchloop report reads the rest");
        return readDatasetFile(name);
      });
      sendJson(res, 200, buildReport(run, { snapshot: readLeaderboardSnapshot() }));
    } catch (err) {
      sendJson(res, 422, { error: (err as Error).message.replace(this.target.root, ".") });
    }
  }

  private async trajectory(res: ServerResponse, rel: string | null): Promise<void> {
    const segments = rel === null ? null : safeSegments(rel, false);
    const file = await fileFor(this.target, segments);
    if (!file || !segments) return notFound(res);
    let view: TrajectoryResponse["view"];
    try {
      view = await loadTrajectoryFile(file);
    } catch (err) {
      return sendJson(res, 422, { error: (err as Error).message.replace(this.target.root, ".") });
    }
    const evals = this.run ? await this.run.evalIndex() : EMPTY_EVALS;
    const shown = segments.join("/");
    const ev = evalFor(evals, view, shown);
    const body: TrajectoryResponse = { file: shown, view, eval: ev };
    const at = this.target.mode === "run" ? attemptOfPath(shown) : null;
    if (at) body.attempt = at.attempt;
    if (!ev && this.target.mode === "run")
      body.evalSearch = at
        ? attemptEvalSearchText(this.target.name, at.attempt)
        : evalSearchText(this.target.name, existsSync(join(this.target.root, "run.json")));
    sendJson(res, 200, body);
  }
}

/**
 * Starts the viewer's HTTP server for a run folder or one trajectory file. It serves the page, its
 * JSON API and (under /files/) the raw files below PATH; every other path, including any that leaves
 * PATH by `..`, encoding or a symbolic link, is a 404. Throws InspectTargetError for a bad PATH.
 */
export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  const target = await resolveTarget(options.path);
  const host = options.host ?? "127.0.0.1";
  const handler = new Handler(target, isLoopback(host));
  const server = createServer((req, res) => {
    handler.handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendJson(res, 500, { error: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolvePromise();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    target,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/** The folder a target's relative paths start from (for messages). */
export function targetLabel(target: InspectTarget): string {
  return target.mode === "run" ? target.root : join(target.root, target.file);
}
