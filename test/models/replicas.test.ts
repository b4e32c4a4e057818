import { afterEach, describe, expect, it } from "vitest";
import { resolveEndpoint } from "../../src/models/endpoint.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { ReplicaPool } from "../../src/models/replica-pool.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

describe("replica pool", () => {
  it("sends to the replica with the fewest in flight, the least recently picked among equals", () => {
    const pool = new ReplicaPool(["http://a", "http://b", "http://c"], 1000, () => 0);
    const l1 = pool.lease();
    const l2 = pool.lease();
    const l3 = pool.lease();
    expect([l1.url, l2.url, l3.url]).toEqual(["http://a", "http://b", "http://c"]);
    l2.done("ok");
    expect(pool.lease().url).toBe("http://b");
    expect(pool.inFlight()).toEqual({ "http://a": 1, "http://b": 1, "http://c": 1 });
    l1.done("ok");
    l3.done("ok");
    // a and c are free again; a was picked longer ago.
    expect(pool.lease().url).toBe("http://a");
  });

  it("leaves a failed replica out for the cooldown, then tries it again; all out: the first back", () => {
    let now = 0;
    const pool = new ReplicaPool(["http://a", "http://b"], 1000, () => now);
    const first = pool.lease();
    expect(first.url).toBe("http://a");
    first.done("failed");
    first.done("failed"); // a second report of the same request counts nothing
    expect([pool.lease().url, pool.lease().url]).toEqual(["http://b", "http://b"]);
    now = 999;
    expect(pool.lease().url).toBe("http://b");
    now = 1000;
    expect(pool.lease().url).toBe("http://a");
    expect(pool.counts()).toEqual({
      "http://a": { requests: 2, failures: 1 },
      "http://b": { requests: 3, failures: 0 },
    });
    // Both out: the one whose cooldown ends first is tried.
    now = 0;
    const both = new ReplicaPool(["http://a", "http://b"], 1000, () => now);
    const x = both.lease();
    const y = both.lease();
    now = 100;
    y.done("failed"); // b out until 1100
    now = 200;
    x.done("failed"); // a out until 1200
    expect(both.lease().url).toBe("http://b");
  });

  it("model.base_url as a list: every entry must be an http(s) URL; replicas are for OpenAI-compatible servers", () => {
    expect(() =>
      resolveEndpoint(
        "openai",
        { base_url: ["http://127.0.0.1:8000/v1", "127.0.0.1:8001"], api_key_env: null, model_name: "m" },
        {},
      ),
    ).toThrow(
      'model.base_url (or OPENAI_BASE_URL) is not an http(s) URL: received "127.0.0.1:8001"; expected e.g. http://127.0.0.1:8000/v1',
    );
    expect(
      resolveEndpoint(
        "openai",
        { base_url: ["http://a:1/v1/", "http://b:2/v1"], api_key_env: null, model_name: "m" },
        {},
      ),
    ).toMatchObject({ baseURL: "http://a:1/v1", baseURLs: ["http://a:1/v1", "http://b:2/v1"] });
    expect(() =>
      createModel(
        modelConfig({ model_name: "anthropic/claude-x", base_url: ["http://a/v1", "http://b/v1"] }),
        {
          env: { ANTHROPIC_API_KEY: "k" },
        },
      ),
    ).toThrow(
      "model.base_url lists 2 servers, but replicas are for OpenAI-compatible servers (openai/<name>); give anthropic/claude-x one base URL",
    );
  });
});

describe("a model client over two real replicas", () => {
  const servers: FakeLlmServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  });

  it("spreads calls, moves to the other replica when one goes away (counted per replica), and retries it later", async () => {
    const reply = {
      type: "reply",
      content: "ok",
      usage: { prompt_tokens: 5, completion_tokens: 1 },
    } as const;
    const a = await startFakeLlmServer({ defaultBehaviour: { ...reply, delayMs: 100 } });
    const b = await startFakeLlmServer({ defaultBehaviour: { ...reply, delayMs: 100 } });
    servers.push(a, b);
    const heard: string[] = [];
    const { sleep } = recordingSleep();
    let now = 1_000_000;
    const model = createModel(
      modelConfig({
        model_name: "openai/fake",
        base_url: [`${a.url}/v1`, `${b.url}/v1`],
        replica_cooldown: 0.3,
      }),
      {
        sleep,
        now: () => now,
        env: {},
        onReplica: (url, outcome) => heard.push(`${url === `${a.url}/v1` ? "a" : "b"} ${outcome}`),
      },
    );
    const ask = () => model.query({ messages: [{ role: "user", content: "hi" }] });
    // Four at once: two on each.
    const four = await Promise.all([ask(), ask(), ask(), ask()]);
    expect(four.every((r) => r.ok)).toBe(true);
    expect([a.requests.length, b.requests.length]).toEqual([2, 2]);
    await a.close();
    heard.length = 0;
    const after = [await ask(), await ask(), await ask()];
    expect(after.map((r) => r.ok)).toEqual([true, true, true]);
    // The first call found a gone and was retried on b; the others went to b at once.
    expect(heard.filter((h) => h === "a failed").length).toBe(1);
    expect(heard.filter((h) => h === "b ok").length).toBe(3);
    expect(b.requests.length).toBe(5);
    // After the cooldown (0.3 s on the client's clock) a is tried again (and fails again: it is still gone).
    now += 300;
    heard.length = 0;
    expect((await ask()).ok).toBe(true);
    expect(heard).toEqual(["a failed", "b ok"]);
  });
});
