import { isPodman } from "../environments/container-cli.js";
import {
  imagePlatform,
  imagePresent,
  pullImage,
  qualifyImageName,
} from "../environments/container-images.js";
import type { SwebenchInstance } from "./types.js";

/**
 * The default `environment.image_template`: the harness's Docker Hub names
 * (`docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest`).
 */
export const DEFAULT_IMAGE_TEMPLATE = "docker.io/swebench/sweb.eval.{arch}.{id}:latest";

export { IMAGE_TEMPLATE_FIELDS, imageTemplateProblem } from "../config/image-template.js";

/**
 * Where each dataset's instance images are published, for rows that do not name their own image
 * (Pro rows always do, through `dockerhub_tag`; Live's and SWE-rebench's carry `docker_image`):
 * SWE-bench's namespace for lite/verified/full/multilingual, SWE-Gym's, SWE-bench-Live's and
 * SWE-rebench's own. `loadDataset` gives a named subset's rows these names.
 */
export const SUBSET_IMAGE_TEMPLATES: Readonly<Record<string, string>> = {
  pro: "docker.io/jefzda/sweap-images:{tag}",
  live: "docker.io/starryzhang/sweb.eval.{arch}.{id}:latest",
  "live-multilang": "docker.io/starryzhang/sweb.eval.{arch}.{id}:latest",
  rebench: "docker.io/swerebench/sweb.eval.{arch}.{id}:latest",
  gym: "docker.io/xingyaoww/sweb.eval.{arch}.{id_s}:latest",
};

/** Where the repository is inside a row's image: the row's `workdir` (Pro: /app), else /testbed. */
export function workdirOf(row: Pick<SwebenchInstance, "workdir">): string {
  return row.workdir || "/testbed";
}

/** The harness's architecture name for a platform: `linux/amd64` -> `x86_64`, `linux/arm64` -> `arm64`; none -> `x86_64`. */
export function archOf(platform?: string | null): string {
  const arch = platform?.split("/")[1];
  if (!arch || arch === "amd64" || arch === "x86_64") return "x86_64";
  if (arch === "arm64" || arch === "aarch64") return "arm64";
  return arch;
}

/**
 * The instance image of an instance id: the template (default: the harness's Docker Hub naming,
 * `docker.io/swebench/sweb.eval.x86_64.<id, "__" -> "_1776_">:latest`) with its fields filled in.
 */
export function instanceImageName(
  instanceId: string,
  options: { template?: string | null; platform?: string | null; tag?: string } = {},
): string {
  const lower = instanceId.toLowerCase();
  const fields: Record<string, string> = {
    id: lower.replaceAll("__", "_1776_"),
    instance_id: lower,
    id_s: lower.replaceAll("__", "_s_"),
    arch: archOf(options.platform),
  };
  if (options.tag !== undefined) fields.tag = options.tag;
  return (options.template || DEFAULT_IMAGE_TEMPLATE).replace(
    /\{([a-z_]+)\}/g,
    (m, f: string) => fields[f] ?? m,
  );
}

/** The image settings of `environment` that name an instance's image. */
export interface ImageSettings {
  image?: string | null;
  image_template?: string | null;
  platform?: string | null;
}

/** The image a row names itself: v5 `image`, `image_name`, `docker_image`, Pro's `dockerhub_tag`. */
function ownImage(row: SwebenchInstance, platform?: string | null): string | undefined {
  for (const name of [row.image, row.image_name, row.docker_image]) {
    if (typeof name === "string" && name) return name;
  }
  if (row.pro) {
    return instanceImageName(row.instance_id, {
      template: SUBSET_IMAGE_TEMPLATES.pro,
      tag: row.pro.dockerhub_tag,
      platform,
    });
  }
  return undefined;
}

/**
 * The image of a dataset row: `environment.image` when set (one image for every instance), else
 * `environment.image_template` when set, else the row's own image (v5 `image`, `image_name`,
 * `docker_image`, or Pro's `dockerhub_tag` in Pro's repository), else the harness's Docker Hub
 * name. A template with `{tag}` needs a row with a tag (Pro's): else it is an Error saying so.
 */
export function imageForRow(row: SwebenchInstance, settings: ImageSettings = {}): string {
  if (settings.image) return settings.image;
  const own = ownImage(row, settings.platform);
  if (!settings.image_template && own) return own;
  const tag = row.pro?.dockerhub_tag;
  if (settings.image_template?.includes("{tag}") && tag === undefined) {
    throw new Error(
      `environment.image_template ${JSON.stringify(settings.image_template)} uses {tag}, but instance ${row.instance_id} has no image tag ` +
        "(only SWE-bench Pro rows carry one, dockerhub_tag); use {id}, {instance_id} or {id_s} for these rows.",
    );
  }
  return instanceImageName(row.instance_id, {
    template: settings.image_template,
    platform: settings.platform,
    tag,
  });
}

/** One step of {@link pullImages}, for progress display. */
export interface PullProgress {
  name: string;
  /** `present`: skipped; `pulling`: try started; `retry`: try failed, another follows. */
  event: "present" | "pulling" | "pulled" | "retry" | "failed";
  /** 1-based try number (pulling, retry, pulled, failed). */
  try?: number;
  /** The failure's reason (retry, failed). */
  error?: string;
  /** The platform of the image as the engine has it (present, pulled). */
  platform?: string;
  /** Images finished so far (present, pulled or failed) and in all. */
  done: number;
  total: number;
}

/** Options of {@link pullImages}. */
export interface PullImagesOptions {
  /** `docker` (default) or `podman` (names are fully qualified for it). */
  executable?: string;
  /** Pulls at the same time; default 2. */
  parallel?: number;
  /** Seconds one pull try may take; default 600. */
  pullTimeout?: number;
  /** Extra tries after a failed pull; default 2. */
  retries?: number;
  /** Seconds before a retry, times the try number; default 5. */
  retryDelay?: number;
  /** `--platform` of the pulls; an image present for another platform is pulled again. */
  platform?: string;
  onProgress?: (p: PullProgress) => void;
}

/** What {@link pullImages} did, by image name (duplicates counted once). */
export interface PullSummary {
  pulled: string[];
  present: string[];
  failed: Array<{ name: string; error: string }>;
  /** The platform of each pulled or present image, as the engine reports it (`linux/amd64`). */
  platforms: Record<string, string>;
}

/**
 * Pulls images ahead of a run, `parallel` at a time, skipping those already present and retrying
 * failures. Never rejects for a failed pull: failures are in the summary.
 */
export async function pullImages(names: string[], options: PullImagesOptions = {}): Promise<PullSummary> {
  const exe = options.executable ?? "docker";
  const parallel = Math.max(1, Math.floor(options.parallel ?? 2));
  const retries = Math.max(0, Math.floor(options.retries ?? 2));
  const delay = options.retryDelay ?? 5;
  const unique = [...new Set(names)];
  const summary: PullSummary = { pulled: [], present: [], failed: [], platforms: {} };
  const platform = options.platform;
  const total = unique.length;
  let done = 0;
  const report = (p: Omit<PullProgress, "done" | "total">) => options.onProgress?.({ ...p, done, total });

  async function one(name: string): Promise<void> {
    const wanted = isPodman(exe) ? qualifyImageName(name) : name;
    const local = (await imagePresent(exe, name, platform))
      ? name
      : wanted !== name && (await imagePresent(exe, wanted, platform))
        ? wanted
        : undefined;
    if (local) {
      summary.present.push(name);
      const found = await imagePlatform(exe, local);
      if (found) summary.platforms[name] = found;
      done++;
      report({ name, event: "present", platform: found });
      return;
    }
    for (let n = 1; ; n++) {
      report({ name, event: "pulling", try: n });
      const r = await pullImage(exe, wanted, options.pullTimeout ?? 600, platform);
      if (r.ok) {
        summary.pulled.push(name);
        const found = await imagePlatform(exe, wanted);
        if (found) summary.platforms[name] = found;
        done++;
        report({ name, event: "pulled", try: n, platform: found });
        return;
      }
      const error = r.error ?? "unknown error";
      if (n > retries) {
        summary.failed.push({ name, error });
        done++;
        report({ name, event: "failed", try: n, error });
        return;
      }
      report({ name, event: "retry", try: n, error });
      if (delay > 0) await new Promise((res) => setTimeout(res, delay * n * 1000));
    }
  }

  let next = 0;
  const workers = Array.from({ length: Math.min(parallel, unique.length) }, async () => {
    while (next < unique.length) await one(unique[next++]);
  });
  await Promise.all(workers);
  return summary;
}
