import { describe, expect, it } from "vitest";
import { maskUrlCredentials, redactSecrets } from "../../src/config/redact.js";
import {
  createScrubber,
  isSecretEnvName,
  isTokenLike,
  scrubObjectSecrets,
  scrubSecrets,
  scrubStringValues,
  secretsOf,
  secretValues,
} from "../../src/config/secret-values.js";

const CONFIG = {
  model: {
    model_name: "openai/fake",
    base_url: "http://alice:pw12345678@127.0.0.1:9/v1",
    api_key_env: "MY_KEY_VAR",
    model_kwargs: {
      api_key: "sk-nested-0001",
      max_tokens: 4096,
      extra_headers: { Authorization: "Bearer tok-0000002", "X-Trace": "trace-not-secret" },
    },
  },
  environment: { env: { MY_TOKEN: "envtok-0003", PAGER: "cat-is-not-secret", SHORT_SECRET: "true" } },
  plugin: { credentials: { user: "someuser4", list: ["listed-secret5"] } },
};

const ENV = {
  MY_KEY_VAR: "keyvar-value6",
  GITHUB_TOKEN: "ghp_abcdefgh7",
  HF_TOKEN_PATH: "/home/x/.cache/huggingface/token",
  SHORT_TOKEN: "abc",
  PATH: "/usr/local/bin:/usr/bin",
};

describe("secretValues", () => {
  it("collects strings under secret keys at any depth, Bearer tokens, URL passwords, api_key_env and secret host variables", () => {
    expect(secretValues(CONFIG, ENV)).toEqual([
      "Bearer tok-0000002",
      "listed-secret5",
      "sk-nested-0001",
      "ghp_abcdefgh7",
      "keyvar-value6",
      "envtok-0003",
      "tok-0000002",
      "pw12345678",
      "someuser4",
    ]);
  });

  it("leaves out values shorter than 8 characters and numbers", () => {
    expect(secretValues({ token: "true", api_key: "1234567", password: 123456789 }, {})).toEqual([]);
    expect(secretValues({ token: "12345678" }, {})).toEqual(["12345678"]);
  });

  it("collects the token of `Basic XYZ` too, and a percent-decoded URL password", () => {
    expect(secretValues({ authorization: "Basic dXNlcjpwYXNz" }, {})).toEqual([
      "Basic dXNlcjpwYXNz",
      "dXNlcjpwYXNz",
    ]);
    expect(secretValues({ url: "https://bob:p%40ss-word@host/x" }, {})).toEqual(["p%40ss-word", "p@ss-word"]);
  });

  it("reads host variables by name: secret-looking ones, not locations", () => {
    expect(
      ["OPENAI_API_KEY", "HF_TOKEN", "DB_PASSWORD", "MY_SECRET", "ANTHROPIC_AUTH_TOKEN"].map(isSecretEnvName),
    ).toEqual([true, true, true, true, true]);
    expect(
      ["HF_TOKEN_PATH", "TOKEN_FILE", "PASSWORD_STORE_DIR", "PATH", "HOME", "OPENAI_API_KEY_ENV"].map(
        isSecretEnvName,
      ),
    ).toEqual([false, false, false, false, false, false]);
    expect(secretValues(undefined, { HF_TOKEN: "hf_0123456789", HOME: "/home/someone" })).toEqual([
      "hf_0123456789",
    ]);
  });

  it("takes a host variable only when its value is token-like: words and plain numbers are left out", () => {
    expect(
      secretValues(undefined, {
        DB_PASSWORD: "password",
        POSTGRES_PASSWORD: "postgres",
        BUILD_TOKEN: "20481024",
        AUTH_TOKEN: "Bearer password",
        HF_TOKEN: "hf_abc123xyz",
        OPENAI_API_KEY: "sk-proj-abcdefgh1",
        LONG_SECRET: "correcthorsebatterystaple",
        CI_TOKEN: "Bearer ci-tok-123",
      }),
    ).toEqual([
      "correcthorsebatterystaple",
      "Bearer ci-tok-123",
      "sk-proj-abcdefgh1",
      "hf_abc123xyz",
      "ci-tok-123",
    ]);
    expect(["password", "postgres", "20481024", "abc12", "aaaaaaaaaaaaaaa"].map(isTokenLike)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(["hf_abc123xyz", "abcdefg1", "1234567890123456", "aaaaaaaaaaaaaaaa"].map(isTokenLike)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("keeps the 8-character rule for the config's own secrets and the variable api_key_env names", () => {
    expect(
      secretValues(
        {
          model: { api_key_env: "MY_KEY", model_kwargs: { api_key: "password" } },
          db: { password: "20481024" },
        },
        { MY_KEY: "postgres", DB_PASSWORD: "password" },
      ),
    ).toEqual(["20481024", "password", "postgres"]);
  });

  it("secretsOf merges a source's config, its explicit secrets and the host's, longest first", () => {
    expect(
      secretsOf(
        { config: { token: "cfg-token-1" }, secrets: ["explicit-secret", "short"] },
        { X_TOKEN: "host-tok-2" },
      ),
    ).toEqual(["explicit-secret", "cfg-token-1", "host-tok-2"]);
    expect(secretsOf(undefined, { X_TOKEN: "host-tok-2" })).toEqual(["host-tok-2"]);
  });
});

describe("scrubSecrets", () => {
  it("replaces every occurrence of every secret, the longer first", () => {
    expect(
      scrubSecrets("Authorization: Bearer tok-0000002; again tok-0000002 and sk-nested-0001.", [
        "tok-0000002",
        "Bearer tok-0000002",
        "sk-nested-0001",
      ]),
    ).toBe("Authorization: ***; again *** and ***.");
  });

  it("replaces the JSON-escaped forms, once and twice nested", () => {
    const secret = 'pa"ss\\word-99';
    const once = JSON.stringify({ v: secret });
    const twice = JSON.stringify({ argv: [once] });
    expect(once).toBe('{"v":"pa\\"ss\\\\word-99"}');
    expect(scrubSecrets(once, [secret])).toBe('{"v":"***"}');
    expect(scrubSecrets(twice, [secret])).toBe('{"argv":["{\\"v\\":\\"***\\"}"]}');
    expect(scrubSecrets(secret, [secret])).toBe("***");
  });

  it("masks URL credentials in any URL, also with no secret known", () => {
    expect(
      scrubSecrets(
        'GET http://user:pw@127.0.0.1:8/v1 and "postgres://u:p@ss@db:5432/x", ssh://git@github.com/a.git, https://host:443/a@b',
        [],
      ),
    ).toBe(
      'GET http://***@127.0.0.1:8/v1 and "postgres://***@db:5432/x", ssh://git@github.com/a.git, https://host:443/a@b',
    );
  });

  it("ignores secrets shorter than 8 characters", () => {
    expect(scrubSecrets("port 8080 verbose true", ["8080", "true"])).toBe("port 8080 verbose true");
  });

  it("a scrubber built once gives the same text as scrubSecrets", () => {
    const scrub = createScrubber(["secret-value-1"]);
    expect(scrub("a secret-value-1 b")).toBe("a *** b");
    expect(scrub("nothing here")).toBe("nothing here");
  });
});

describe("scrubStringValues and scrubObjectSecrets", () => {
  it("scrub string values at any depth; numbers, keys, booleans and null are left as they are", () => {
    const value = {
      prompt_tokens: 1204810245,
      "20481024": "key 20481024 stays, value 20481024 goes",
      list: ["a 20481024", 20481024, true, null, { deep: "x20481024x" }],
      when: new Date("2026-01-02T03:04:05.000Z"),
    };
    const out = scrubStringValues(value, createScrubber(["20481024"]));
    expect(out).toEqual({
      prompt_tokens: 1204810245,
      "20481024": "key *** stays, value *** goes",
      list: ["a ***", 20481024, true, null, { deep: "x***x" }],
      when: "2026-01-02T03:04:05.000Z",
    });
    expect(value.list[0]).toBe("a 20481024");
  });

  it("a secret ending in a backslash is masked and the JSON stays valid", () => {
    const secret = "tok-abc123\\";
    const text = JSON.stringify(
      scrubObjectSecrets({ log: `sent ${secret} and "${secret}"` }, { config: { api_key: secret } }, {}),
    );
    expect(text).toBe('{"log":"sent *** and \\"***\\""}');
    expect(JSON.parse(text)).toEqual({ log: 'sent *** and "***"' });
  });

  it("scrubObjectSecrets masks the source's secrets, the host's token-like ones and URL credentials", () => {
    expect(
      scrubObjectSecrets(
        { a: "cfg-secret-1 host-tok-2 password http://u:p@h/x", n: 7 },
        { config: { token: "cfg-secret-1" } },
        { X_TOKEN: "host-tok-2", DB_PASSWORD: "password" },
      ),
    ).toEqual({ a: "*** *** password http://***@h/x", n: 7 });
  });
});

describe("redactSecrets", () => {
  it("masks strings under secret keys (at any depth) and URL credentials elsewhere; the input is unchanged", () => {
    expect(redactSecrets(CONFIG)).toEqual({
      model: {
        model_name: "openai/fake",
        base_url: "http://***@127.0.0.1:9/v1",
        api_key_env: "MY_KEY_VAR",
        model_kwargs: {
          api_key: "***",
          max_tokens: 4096,
          extra_headers: { Authorization: "***", "X-Trace": "trace-not-secret" },
        },
      },
      environment: { env: { MY_TOKEN: "***", PAGER: "cat-is-not-secret", SHORT_SECRET: "***" } },
      plugin: { credentials: { user: "***", list: ["***"] } },
    });
    expect(CONFIG.model.base_url).toBe("http://alice:pw12345678@127.0.0.1:9/v1");
  });

  it("maskUrlCredentials leaves text without credentials as it is", () => {
    expect(maskUrlCredentials("http://127.0.0.1:8000/v1")).toBe("http://127.0.0.1:8000/v1");
    expect(maskUrlCredentials("a:b@c")).toBe("a:b@c");
  });
});
