import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { resolve } from "node:path";
import { sourceCommit } from "../agent/source-commit.js";
import { parseModelName } from "../config/model-name.js";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { resolveEndpoint } from "../models/endpoint.js";
import { createAgents, sendRequest } from "../models/http-transport.js";
import { asRecord } from "../models/json-shape.js";
import { requestHeaders } from "../models/request-headers.js";
import { packageRoot } from "../package-root.js";
import { runProcess } from "../util/run-process.js";
import { VERSION } from "../version.js";

/**
 * What reproducing a batch needs, recorded in run.json (`info.reproduce`) before the first
 * instance starts, and compared by `patchloop swebench --like DIR` with what a new run would use.
 * Everything here is read, never guessed: a fact that cannot be had is null.
 */
export interface ReproduceInfo {
  patchloop: {
    version: string;
    /** The git commit of the patchloop checkout that runs (`-dirty` when it has changes), or null outside one. */
    commit: string | null;
  };
  /** sha256 of the resolved config (secrets masked), as JSON with sorted keys. */
  config_sha256: string;
  model: {
    name: string;
    /** What the server said it serves (`GET <base>/models`: id, root, owned_by, max_model_len), or null. */
    served: Record<string, unknown>[] | null;
    /** vLLM's `GET /version`, where the server has one. */
    server_version: string | null;
    /** A GGUF model: its file, size and sha256. */
    gguf: { file: string; bytes: number; sha256: string } | null;
  };
  dataset: {
    subset: string;
    split: string;
    /** sha256 of every row loaded, and of the rows this run selected (as JSON). */
    sha256: string;
    selected_sha256: string;
    selected: number;
  };
  environment: {
    class: string;
    /** Image id per image name, where the engine reports one (docker, podman); null elsewhere. */
    images: Record<string, string> | null;
  };
}

/** JSON with the keys of every object sorted. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The commit of the checkout patchloop runs from, `-dirty` when a tracked file differs from it;
 * null for an installed package. The commit is read from .git (sourceCommit); only the dirty check
 * is a git process, run while the server is asked what it serves (a batch's start-up, issue 45).
 */
async function checkoutCommit(): Promise<string | null> {
  const commit = sourceCommit();
  if (commit === null) return null;
  const status = await runProcess(
    "git",
    ["-C", packageRoot(), "status", "--porcelain", "--untracked-files=no"],
    {
      timeout: 5,
    },
  );
  const dirty = status.code === 0 && status.stdout.toString("utf8").trim() !== "";
  return `${commit}${dirty ? "-dirty" : ""}`;
}

async function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  const agents = createAgents();
  try {
    const res = await sendRequest(
      url,
      { method: "GET", headers, signal: AbortSignal.timeout(timeoutMs) },
      agents,
    );
    if (res.status < 200 || res.status > 299) return null;
    return JSON.parse(res.bodyText) as unknown;
  } catch {
    return null;
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
}

/** What an OpenAI-compatible server says it serves, and vLLM's version. */
async function servedBy(
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<Pick<ReproduceInfo["model"], "served" | "server_version">> {
  const parsed = parseModelName(config.model.model_name);
  if (parsed.provider !== "openai") return { served: null, server_version: null };
  let base: string;
  let key: string;
  try {
    const e = resolveEndpoint("openai", config.model, env);
    base = e.baseURL.replace(/\/+$/, "");
    key = e.apiKey;
  } catch {
    return { served: null, server_version: null };
  }
  const headers = requestHeaders("openai", key, env);
  const listing = asRecord(await getJson(`${base}/models`, headers, 5000));
  const data = Array.isArray(listing?.data) ? listing.data.map(asRecord).filter((m) => m !== null) : null;
  const served =
    data?.map((m) =>
      Object.fromEntries(
        ["id", "root", "owned_by", "max_model_len"].filter((k) => m[k] !== undefined).map((k) => [k, m[k]]),
      ),
    ) ?? null;
  const root = base.replace(/\/v1$/, "");
  const version = asRecord(await getJson(`${root}/version`, headers, 3000))?.version;
  return { served, server_version: typeof version === "string" ? version : null };
}

/** A GGUF model file's size and sha256 (read whole: seconds per GB). */
async function ggufFacts(name: string): Promise<ReproduceInfo["model"]["gguf"]> {
  const parsed = parseModelName(name);
  if (parsed.provider !== "gguf") return null;
  const file = resolve(parsed.path);
  try {
    const st = statSync(file);
    if (!st.isFile()) return null;
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    return { file, bytes: st.size, sha256: hash.digest("hex") };
  } catch {
    return null;
  }
}

/** Image ids of `names` as the engine reports them (missing images left out), or null. */
function imageIds(executable: string, names: string[]): Record<string, string> | null {
  if (names.length === 0) return {};
  const r = spawnSync(executable, ["image", "inspect", "--format", "{{.Id}}", ...names], {
    encoding: "utf8",
    timeout: 20_000,
  });
  if (r.error) return null;
  // One line per image found, in order; with a missing image the engine fails and prints fewer.
  const ids = r.stdout.split("\n").filter((l) => l.trim() !== "");
  if (ids.length !== names.length) {
    const out: Record<string, string> = {};
    for (const n of names) {
      const one = spawnSync(executable, ["image", "inspect", "--format", "{{.Id}}", n], {
        encoding: "utf8",
        timeout: 10_000,
      });
      if (one.status === 0 && one.stdout.trim()) out[n] = one.stdout.trim();
    }
    return out;
  }
  return Object.fromEntries(names.map((n, i) => [n, ids[i].trim()]));
}

export interface ReproduceInput {
  config: Config;
  rows: SwebenchInstance[];
  dataset: { subset: string; split: string; sha256: string };
  /** The image name of each row (docker, podman), when the environment uses images. */
  images?: string[];
  /** Whether to ask the model server what it serves (a coordinator of a queue sends to none). */
  askServer?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Collects the facts of `ReproduceInfo`; never throws for a fact it cannot get (null instead). */
export async function reproduceInfo(o: ReproduceInput): Promise<ReproduceInfo> {
  const env = o.env ?? process.env;
  const kind = o.config.environment.environment_class;
  const engine = kind === "docker" || kind === "podman" ? (o.config.environment.executable ?? kind) : null;
  const commit = checkoutCommit();
  const served =
    o.askServer === false ? { served: null, server_version: null } : await servedBy(o.config, env);
  return {
    patchloop: { version: VERSION, commit: await commit },
    config_sha256: sha256(sortedJson(redactSecrets(o.config))),
    model: {
      name: o.config.model.model_name,
      ...served,
      gguf: await ggufFacts(o.config.model.model_name),
    },
    dataset: {
      subset: o.dataset.subset,
      split: o.dataset.split,
      sha256: o.dataset.sha256,
      selected_sha256: sha256(JSON.stringify(o.rows)),
      selected: o.rows.length,
    },
    environment: {
      class: kind,
      images: engine && o.images ? imageIds(engine, [...new Set(o.images)]) : null,
    },
  };
}

/** One line per fact that differs between a recorded run and a new one (`--like`), in words. */
export function reproduceDifferences(before: unknown, now: ReproduceInfo): string[] {
  const b = asRecord(before);
  if (!b) return ["the run folder records nothing to compare with (its run.json predates info.reproduce)"];
  const at = (o: unknown, path: string): unknown =>
    path.split(".").reduce<unknown>((v, k) => asRecord(v)?.[k], o);
  const lines: string[] = [];
  const facts: [string, string][] = [
    ["patchloop.version", "patchloop version"],
    ["patchloop.commit", "patchloop commit"],
    ["config_sha256", "resolved config (sha256)"],
    ["model.name", "model"],
    ["model.served", "what the server says it serves"],
    ["model.server_version", "server version"],
    ["model.gguf", "GGUF file"],
    ["dataset.sha256", "dataset rows (sha256)"],
    ["dataset.selected_sha256", "selected rows (sha256)"],
    ["environment.class", "environment"],
    ["environment.images", "image ids"],
  ];
  for (const [path, what] of facts) {
    const was = at(b, path);
    const is = at(now, path);
    if (sortedJson(was ?? null) !== sortedJson(is ?? null))
      lines.push(`${what}: ${short(was)} then, ${short(is)} now`);
  }
  return lines;
}

function short(v: unknown): string {
  const text = v === undefined || v === null ? "unknown" : typeof v === "string" ? v : sortedJson(v);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
