import { z } from "zod";
import { imageTemplateProblem } from "./image-template.js";
import { REASONING_FAMILIES } from "./reasoning-families.js";
import { makeSelectSchema } from "./select-schema.js";

// The config is checked once per process: compiling zod's fast paths (new Function) would cost more
// start-up time and memory than it saves (npm run bench -- --only startup).
z.config({ jitless: true });

/**
 * The whole configuration, four sections as in mini-swe-agent v2. Every object is `.strict()`:
 * an unknown key is an error (see validate.ts for how it is reported), never silently dropped.
 * Keys that mini-swe-agent knows but patchloop does not act on are listed in
 * `IGNORED_MINI_KEYS` (validate.ts): they load with a loud warning.
 */

/** `agent.history`: see docs/history.md and src/agent/history/. */
export const HistorySchema = z
  .object({
    /** `full`: every message as recorded; `mask_observations`: older observations replaced by a placeholder. */
    policy: z.enum(["full", "mask_observations"]),
    /** Observations kept whole after a masking step (the most recent ones; at least the last, which the model has not seen yet). */
    keep_last: z.number().int().min(1),
    /** Mask every N model calls (0: only at the threshold). */
    every: z.number().int().min(0),
    /** Also mask when the last prompt reached this fraction of agent.context_limit (0: never). */
    threshold: z.number().min(0).max(1),
    /** Jinja template of the text that stands in for a masked observation. */
    placeholder: z.string().min(1),
  })
  .strict();

/** `agent.localize`: fault localization before step 1 (docs/localize.md, src/localize/). */
export const LocalizeSchema = z
  .object({
    enabled: z.boolean(),
    /** Files in the ranking the templates get (`localization.files`). */
    top_k: z.number().int().min(1).max(100),
    /** Definitions in the ranking (`localization.symbols`). */
    top_symbols: z.number().int().min(0).max(100),
    /** Files larger than this many bytes are not read. */
    max_file_bytes: z.number().int().positive(),
    /** One model call re-orders the top candidates (its cost counts in the task's budget). */
    rerank: z
      .object({
        enabled: z.boolean(),
        candidates: z.number().int().min(2).max(50),
        template: z.string().min(1),
      })
      .strict(),
  })
  .strict();

export const AgentSchema = z
  .object({
    /** Jinja template of the system message. */
    system_template: z.string(),
    /** Jinja template of the first user message (the task). */
    instance_template: z.string(),
    /** Maximum model calls; 0 means no limit. */
    step_limit: z.number().int().min(0),
    /** Maximum cost in USD; 0 means no limit. */
    cost_limit: z.number().min(0),
    /** Maximum wall-clock seconds for the task; 0 means no limit. */
    time_limit: z.number().min(0),
    /** Maximum prompt tokens of one call (as reported by the model); 0 means no limit. */
    context_limit: z.number().int().min(0),
    /** How actions are expressed: JSON tool calls or one fenced text block per reply. */
    protocol: z.enum(["tool_calls", "backticks"]),
    /** Tools offered (tool_calls) or understood (backticks: `bash` always; `edit_tool` adds the heredoc front). */
    tools: z.array(z.enum(["bash", "str_replace_editor", "edit_tool", "view_image"])).min(1),
    /** Info string of the fenced block in the backticks protocol. */
    action_tag: z.string().regex(/^[A-Za-z0-9_.+-]+$/, "letters, digits and _ . + - only"),
    /** Consecutive format errors that end the task with RepeatedFormatError. */
    max_format_errors: z.number().int().min(1),
    /**
     * Actions of one reply that run: the first this many, in order; the rest are dropped unrun and
     * the model is told so. 0 means no cap.
     */
    max_actions_per_reply: z.number().int().min(0),
    /** Keep the work tree's `git diff` as the patch on exits other than Submitted. */
    diff_on_exit: z.boolean(),
    /** Characters of one observation kept before head+tail truncation. */
    output_limit: z.number().int().min(200),
    /** `fresh`: every bash command in a new subshell; `persistent`: one shell per task. */
    bash_mode: z.enum(["fresh", "persistent"]),
    /** Template of the message sent after a reply cut off by the token limit (finish_reason `length`). */
    length_template: z.string(),
    /** Phases of the step budget as fractions of step_limit (template variable `budget`). */
    budget: z
      .object({
        explore: z.number().gt(0).lt(1),
        fix_by: z.number().gt(0).lt(1),
        submit_by: z.number().gt(0).lt(1),
        final: z.number().gt(0).max(1),
      })
      .strict(),
    /** What of the history is sent to the model each step (docs/history.md); the trajectory keeps it all. */
    history: HistorySchema,
    localize: LocalizeSchema,
  })
  .strict()
  .superRefine((agent, ctx) => {
    const h = agent.history;
    if (h.policy === "mask_observations" && h.every === 0 && (h.threshold === 0 || agent.context_limit === 0))
      ctx.addIssue({
        code: "custom",
        path: ["history"],
        message:
          "agent.history.policy is mask_observations but nothing would ever mask: set agent.history.every " +
          "(mask every N steps), or agent.history.threshold with agent.context_limit (mask when the prompt nears the limit)",
      });
  });

export const PriceSchema = z
  .object({
    /** USD per million prompt tokens. */
    input_per_mtok: z.number().min(0),
    /** USD per million completion tokens. */
    output_per_mtok: z.number().min(0),
  })
  .strict();

export const RetrySchema = z
  .object({
    /** Tries of one model call in all, the first included. */
    max_tries: z.number().int().min(1),
    /** Seconds before the first retry; doubles each time, with jitter. */
    initial_delay: z.number().min(0),
    max_delay: z.number().min(0),
    /** Seconds one model call may take in all, its tries and the waits between them; 0: no limit. */
    max_total: z.number().min(0),
  })
  .strict();

/** The model section's keys (ModelSchema adds the checks across them; select's model layers take these). */
export const ModelFieldsSchema = z
  .object({
    /** `openai/<name>`, `anthropic/<name>`, `replay:<file>`; a bare name means `openai/<name>`. */
    model_name: z.string(),
    /**
     * Base URL of an OpenAI-compatible server (else OPENAI_BASE_URL, else the hosted API), or a list
     * of replicas serving the same model (src/models/replica-pool.ts).
     */
    base_url: z.union([z.string(), z.array(z.string()).min(1)]).nullable(),
    /** Seconds a replica of `base_url` that failed is left out before it is tried again. */
    replica_cooldown: z.number().min(0),
    /** Name of the environment variable holding the API key (never the key itself). */
    api_key_env: z.string().nullable(),
    /** Request fields sent unchanged (temperature, max_tokens, top_k, chat_template_kwargs, ...). */
    model_kwargs: z.record(z.string(), z.unknown()),
    /** Whether the model accepts images. */
    vision: z.boolean(),
    /** Price override; without it local endpoints cost 0 and known hosted models use the built-in table. */
    price: PriceSchema.nullable(),
    retry: RetrySchema,
    /** Seconds one HTTP request may take. */
    request_timeout: z.number().positive(),
    /** Bytes a reply may have, on the wire and decoded; a larger one ends the call (fatal). At most 256 MiB: a reply is held as one string. */
    max_response_bytes: z
      .number()
      .int()
      .positive()
      .max(256 * 1024 ** 2),
    /** Template of the message that reports an action's result. */
    observation_template: z.string(),
    /** Template of the message sent when a reply cannot be parsed into actions. */
    format_error_template: z.string(),
    /** Backticks protocol: a regex with one group that captures the command (overrides `agent.action_tag`). */
    action_regex: z.string().nullable(),
    /** `default` warns once on unknown prices; `ignore_errors` stays quiet. */
    cost_tracking: z.enum(["default", "ignore_errors"]),
    /**
     * The model's earlier reasoning in later requests: all of it (`keep`), none (`drop`), or the
     * current tool-call chain's as `family`'s chat template keeps it (`chain`; src/models/reasoning-chain.ts).
     */
    reasoning_history: z.enum(["keep", "drop", "chain"]),
    /**
     * The model's chat-template family; says where `reasoning_history: chain` starts a chain. null:
     * taken from the model's name when it names one (its preset is applied, src/config/auto-family.ts);
     * `none`: no family, and none taken from the name.
     */
    family: z.enum([...REASONING_FAMILIES, "none"]).nullable(),
    /** OpenAI-compatible wire format: `chat` (/chat/completions) or `responses` (/responses, harmony for gpt-oss). */
    api: z.enum(["chat", "responses"]),
    /** Ask the server to enforce the action format (fenced block or a tool call). */
    constrain_actions: z.boolean(),
    /** Which server the base URL is; null: asked from the server when needed. */
    server: z.enum(["vllm", "sglang", "llamacpp", "ollama", "openai"]).nullable(),
    /** The embedded runtime of `gguf:PATH` models (src/models/gguf/). */
    gguf: z
      .object({
        /** Tokens of context of each sequence. */
        context_size: z.number().int().min(256),
        /** Threads that evaluate tokens; null: node-llama-cpp's choice (the machine's math cores). */
        threads: z.number().int().positive().nullable(),
        /** Layers on the GPU: a number (0: CPU only), or `auto` (as many as fit; CPU where no GPU build loads). */
        gpu_layers: z.union([z.number().int().min(0), z.literal("auto")]),
        /** Sequences of the one context (tasks evaluated in one batch); null: as many as run at once (`-w`). */
        sequences: z.number().int().positive().nullable(),
        /** Seconds loading the model may take ("10m" works too); then the query fails, naming the file. */
        load_timeout: z.preprocess(durationSeconds, z.number().positive()),
        /** GiB of memory the process may hold while the model loads; null: 90% of the machine's memory. */
        load_memory_gib: z.number().positive().nullable(),
      })
      .strict(),
  })
  .strict();

export const ModelSchema = ModelFieldsSchema.superRefine((model, ctx) => {
  if (model.reasoning_history === "chain" && (model.family === null || model.family === "none"))
    ctx.addIssue({
      code: "custom",
      path: ["family"],
      message: `model.reasoning_history is chain, which keeps the reasoning of the current tool-call chain as the model's chat template does, but model.family is ${model.family}: set it to one of ${REASONING_FAMILIES.join(", ")} (docs/models.md), or use reasoning_history keep or drop`,
    });
});

const DURATION = /^(\d+(?:\.\d+)?)\s*([smh]?)$/;

/** "2h" → 7200, "90m" → 5400, "30s" / "30" → 30; anything else is left for the schema to reject. */
function durationSeconds(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const m = DURATION.exec(value.trim());
  if (!m) return value;
  return Number(m[1]) * ({ h: 3600, m: 60, s: 1, "": 1 } as Record<string, number>)[m[2]];
}

export const EnvironmentSchema = z
  .object({
    environment_class: z.enum(["local", "bwrap", "docker", "podman"]),
    /** Working directory of the task inside the environment (the repository root). Empty: the repo dir. */
    cwd: z.string(),
    /** Seconds one command may run. */
    timeout: z.number().positive(),
    /** Variables set for every command. */
    env: z.record(z.string(), z.string()),
    /** Host variables passed through by name. */
    forward_env: z.array(z.string()),
    /** docker/podman: image to start. */
    image: z.string().nullable(),
    /**
     * docker/podman: the name of an instance's image when `image` is unset; `{id}`, `{instance_id}`
     * and `{arch}` are filled in (src/dataset/images.ts). null: the row's own image, else the
     * harness's Docker Hub name.
     */
    image_template: z
      .string()
      .nullable()
      .superRefine((t, ctx) => {
        const problem = t === null ? undefined : imageTemplateProblem(t);
        if (problem) ctx.addIssue({ code: "custom", message: `not a usable image template: ${problem}` });
      }),
    /** docker/podman: `--platform` of pulls and runs (`linux/amd64`, `linux/arm64`); null: the engine's own. */
    platform: z
      .string()
      .regex(/^[a-z0-9]+\/[a-z0-9_]+(\/[a-z0-9]+)?$/, "a platform is os/arch[/variant], e.g. linux/amd64")
      .nullable(),
    /** docker/podman: the CLI executable. */
    executable: z.string().nullable(),
    /** Seconds one image pull may take. */
    pull_timeout: z.number().positive(),
    /** Seconds a container may live; a duration such as "2h" or "90m" (mini-swe-agent's form) is read too. */
    container_timeout: z.preprocess(durationSeconds, z.number().positive()),
    /** Extra arguments to `docker run`. */
    run_args: z.array(z.string()),
    /** Most memory of the task's processes (`8g`, `512m`); docker/podman `--memory`, bwrap/local a cgroup. null: none. */
    memory: z.string().nullable(),
    cpus: z.number().positive().nullable(),
    /** Most processes at once (a fork bomb stops there); docker/podman `--pids-limit`, bwrap/local a cgroup. null: none. */
    pids_limit: z.number().int().positive().nullable(),
    /** bwrap: extra host paths shown in the sandbox, `HOST[:SANDBOX][:ro|rw]` (read-only unless `:rw`). */
    binds: z.array(z.string()),
    /** docker/podman `--network` value; bwrap: `none` or `host`. */
    network: z.string(),
    /** Bytes of output captured from one command before the middle is dropped. */
    capture_limit: z.number().int().positive(),
  })
  .strict();

/** `patchloop swebench --queue` and `patchloop worker` (docs/distributed.md). */
export const QueueSchema = z
  .object({
    /** Deliveries of one instance's job to a worker (a worker killed mid-job uses one) before it is given up. */
    deliveries: z.number().int().min(1),
    /** Seconds a worker's lock on a job lasts unrenewed; its jobs run elsewhere once it lapses. */
    lock_seconds: z.number().min(1),
    /** Seconds between the workers' checks for jobs whose lock lapsed (BullMQ's stalled check). */
    stalled_check_seconds: z.number().min(1),
    /** Seconds a worker told to stop (SIGTERM) lets its running jobs finish before handing them back. */
    grace_seconds: z.number().min(0),
    /** Name of the variable holding a secret shared by a coordinator and its workers (jobs and results signed); null: none. */
    secret_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable (letters, digits and _)")
      .nullable(),
  })
  .strict();

/**
 * What the model is told of a person's decisions in an interactive `patchloop run`
 * (docs/interactive.md), as Jinja templates; the variables are named in configs/base.yaml.
 */
export const InteractiveSchema = z
  .object({
    rejected_template: z.string(),
    take_over_template: z.string(),
    ended_template: z.string(),
    edited_template: z.string(),
    stopped_template: z.string(),
    message_template: z.string(),
  })
  .strict();

/**
 * When a batch stops starting attempts of an instance (docs/attempts.md). 0 turns a rule off.
 */
export const AttemptPolicySchema = z
  .object({
    /** USD an instance's attempts may cost together; no further attempt starts once they have. */
    cost_limit: z.number().min(0),
    /** Finished attempts that submitted the same normalized patch after which no further attempt starts. */
    agree: z.number().int().min(0),
    /** Extra attempts that may replace attempts that ended without a patch (or failed), per instance. */
    replace_failed: z.number().int().min(0),
  })
  .strict();

/**
 * A batch task whose environment would not open, or whose model server failed (no connection, 5xx
 * or 429 after the client's own retries, a timeout) before its first reply, is run again in a fresh
 * environment after a growing wait; once the model has replied, never (docs/attempts.md).
 */
export const InfraRetrySchema = z
  .object({
    /** Runs after the first; 0: none. */
    retries: z.number().int().min(0).max(20),
    /** Seconds before the first retry; each later wait doubles, up to `max_delay`. */
    delay: z.number().min(0),
    /** Seconds any one wait may reach. */
    max_delay: z.number().min(0),
  })
  .strict();

export const RunSchema = z
  .object({
    /** Command run once in the environment before the agent starts (e.g. activate a conda env). */
    env_startup_command: z.string().nullable(),
    /** Independent attempts per instance in a batch, each with its own work tree, trajectory and patch. */
    attempts: z.number().int().min(1),
    /**
     * Config layers cycled over the attempts (attempt k takes entry (k-1) mod length): a map in the
     * config's shape, or a built-in config name / YAML file (read when the config is loaded).
     */
    attempt_variants: z.array(z.union([z.string().min(1), z.record(z.string(), z.unknown())])),
    attempt_policy: AttemptPolicySchema,
    /** Infrastructure failures before the model's first reply, run again (docs/attempts.md). */
    infra_retry: InfraRetrySchema,
    queue: QueueSchema,
    interactive: InteractiveSchema,
    /** Picking one patch per instance from several candidates (docs/selection.md, src/select/). */
    select: makeSelectSchema(ModelFieldsSchema.partial().strict()),
  })
  .strict();

export const ConfigSchema = z
  .object({
    agent: AgentSchema,
    model: ModelSchema,
    environment: EnvironmentSchema,
    run: RunSchema,
  })
  .strict();

export type AgentConfig = z.infer<typeof AgentSchema>;
export type HistoryConfig = z.infer<typeof HistorySchema>;
export type ModelConfig = z.infer<typeof ModelSchema>;
export type EnvironmentConfig = z.infer<typeof EnvironmentSchema>;
export type RunConfig = z.infer<typeof RunSchema>;
export type AttemptPolicy = z.infer<typeof AttemptPolicySchema>;
export type InfraRetry = z.infer<typeof InfraRetrySchema>;
/** `run.select` (config/select-schema.ts makes its schema). */
export type SelectConfig = RunConfig["select"];
export type Config = z.infer<typeof ConfigSchema>;
