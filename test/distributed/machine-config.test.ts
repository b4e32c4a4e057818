import { describe, expect, it } from "vitest";
import { parseOverride } from "../../src/config/layers.js";
import { loadConfig } from "../../src/config/load.js";
import { redactSecrets } from "../../src/config/redact.js";
import { explicitSettings, ignoredKeys, jobConfig } from "../../src/distributed/machine-config.js";
import { parseQueueUrl } from "../../src/distributed/queue-url.js";

const coordinatorConfig = (extra: string[] = []) =>
  loadConfig({
    configArgs: [
      "swebench",
      "model.model_name=openai/qwen",
      "model.base_url=http://gpu1:8000/v1",
      "environment.environment_class=docker",
      ...extra,
    ],
    defaultConfig: "swebench",
  }).config;

const worker = (...args: string[]) => explicitSettings(args.map(parseOverride));

describe("the config a worker runs a job with", () => {
  it("the job's config with this machine's settings laid over it; other keys are the coordinator's", () => {
    const job = redactSecrets(coordinatorConfig());
    const mine = worker(
      "environment.environment_class=podman",
      "environment.image_template=registry.local:5000/sweb.eval.x86_64.{id}:latest",
      "model.base_url=[http://127.0.0.1:8000/v1, http://127.0.0.1:8001/v1]",
      "run.queue.lock_seconds=10",
      "agent.step_limit=3",
    );
    const c = jobConfig(job, mine);
    expect(c.environment.environment_class).toBe("podman");
    expect(c.environment.image_template).toBe("registry.local:5000/sweb.eval.x86_64.{id}:latest");
    expect(c.model.base_url).toEqual(["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]);
    expect(c.run.queue).toEqual({
      attempts: 3,
      lock_seconds: 10,
      stalled_check_seconds: 30,
      grace_seconds: 60,
    });
    expect(c.agent.step_limit).toBe(coordinatorConfig().agent.step_limit);
    expect(c.model.model_name).toBe("openai/qwen");
    expect(ignoredKeys(mine)).toEqual(["agent.step_limit"]);
  });

  it("a secret never travels: the worker fills it from its own settings, or refuses the job naming the key", () => {
    const job = redactSecrets(coordinatorConfig(["model.model_kwargs.api_key=sk-live-123456789"]));
    expect(JSON.stringify(job)).not.toContain("sk-live-123456789");
    expect(() => jobConfig(job, worker())).toThrow(
      "the job's config holds a secret at model.model_kwargs.api_key, which is never sent through the queue; " +
        "give it to this worker (e.g. -c model.model_kwargs.api_key=VALUE, or a config file with it)",
    );
    const mine = worker("model.model_kwargs.api_key=sk-worker-987654321");
    expect(jobConfig(job, mine).model.model_kwargs.api_key).toBe("sk-worker-987654321");
    expect(ignoredKeys(mine)).toEqual([]);
    // URL credentials are masked too: the worker's own base URL replaces the masked one.
    const withUrl = redactSecrets(coordinatorConfig(["model.base_url=http://user:pw-123456@gpu1:8000/v1"]));
    expect(() => jobConfig(withUrl, worker())).toThrow("holds a secret at model.base_url");
    expect(jobConfig(withUrl, worker("model.base_url=http://127.0.0.1:8000/v1")).model.base_url).toBe(
      "http://127.0.0.1:8000/v1",
    );
  });

  it("a job whose config this worker's patchloop cannot read is refused, saying so", () => {
    const job = redactSecrets(coordinatorConfig()) as unknown as { agent: Record<string, unknown> };
    job.agent.a_key_from_a_newer_version = 1;
    expect(() => jobConfig(job, worker())).toThrow(
      "the job's config does not fit this worker's patchloop (agent: Unrecognized key: \"a_key_from_a_newer_version\"); " +
        "run the same patchloop version on the coordinator and the workers",
    );
  });
});

describe("--queue URL", () => {
  it("reads redis://HOST:PORT[/DB], masks a password, and says what was wrong", () => {
    expect(parseQueueUrl("redis://10.0.0.5:6380/2")).toEqual({
      host: "10.0.0.5",
      port: 6380,
      db: 2,
      tls: false,
      shown: "redis://10.0.0.5:6380/2",
    });
    expect(parseQueueUrl("rediss://:s3cret@redis.local")).toMatchObject({
      port: 6379,
      db: 0,
      password: "s3cret",
      tls: true,
      shown: "rediss://:***@redis.local/0",
    });
    expect(() => parseQueueUrl("http://127.0.0.1:6379")).toThrow(
      "--queue http:// is not a Redis URL; expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0",
    );
    expect(() => parseQueueUrl("redis://127.0.0.1:6379/x")).toThrow(
      '--queue: the database number must be an integer >= 0; got "x"',
    );
    expect(() => parseQueueUrl("127.0.0.1:6379")).toThrow(
      '--queue "127.0.0.1:6379" is not a URL; expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0',
    );
  });
});
