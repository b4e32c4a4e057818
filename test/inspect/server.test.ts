import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inspectHint } from "../../src/cli/inspect.js";
import { safeSegments } from "../../src/inspect/safe-path.js";
import { type InspectServer, startInspectServer } from "../../src/inspect/server.js";
import { runCli, spawnCli, waitForUrl } from "./cli-driver.js";
import { makeRunFolder } from "./run-fixture.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request: the path goes out exactly as written (no client-side normalisation). */
function get(base: string, path: string, options: { method?: string; host?: string } = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((done, fail) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? "GET",
        headers: options.host ? { host: options.host } : {},
      },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => {
          body += d.toString();
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", fail);
    req.end();
  });
}

const SECRET = "TOP-SECRET-OUTSIDE-THE-RUN";

describe("viewer server: only files under PATH", () => {
  const parent = mkdtempSync(join(tmpdir(), "patchloop-inspect-safety-"));
  const dir = makeRunFolder(parent);
  let server: InspectServer;

  beforeAll(async () => {
    writeFileSync(join(parent, "secret.txt"), SECRET);
    mkdirSync(join(parent, "outside"));
    writeFileSync(join(parent, "outside", "secret.txt"), SECRET);
    symlinkSync(join(parent, "secret.txt"), join(dir, "leak.traj.json"));
    symlinkSync(join(parent, "outside"), join(dir, "outlink"));
    symlinkSync(join(dir, "preds.json"), join(dir, "alias.json"));
    server = await startInspectServer({ path: dir, port: 0 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(parent, { recursive: true, force: true });
  });

  test("binds to 127.0.0.1 by default", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  const outside = [
    "/files/../secret.txt",
    "/files/../../../../etc/passwd",
    "/files/%2e%2e/secret.txt",
    "/files/%2E%2E%2Fsecret.txt",
    "/files/..%2fsecret.txt",
    "/files/..%5csecret.txt",
    "/files/./../secret.txt",
    "/files//etc/passwd",
    "/files/%2Fetc%2Fpasswd",
    "/files/%zz",
    "/files/leak.traj.json",
    "/files/outlink/secret.txt",
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/api/trajectory?path=../secret.txt",
    "/api/trajectory?path=%2e%2e%2Fsecret.txt",
    "/api/trajectory?path=/etc/passwd",
    "/api/trajectory?path=leak.traj.json",
    "/api/trajectory?path=outlink/secret.txt",
    "/api/trajectory?path=",
    "/api/trajectory",
  ];
  test.each(outside)("GET %s -> 404", async (path) => {
    const res = await get(server.url, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain(SECRET);
  });

  test("an absolute path to a file outside -> 404", async () => {
    const res = await get(server.url, `/files/${join(parent, "secret.txt")}`);
    expect(res.status).toBe(404);
  });

  test("files under PATH are served as plain text, with the security headers", async () => {
    const res = await get(server.url, "/files/preds.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(JSON.parse(res.body)).toHaveProperty("psf__requests-2317");
    expect((await get(server.url, "/files/alias.json")).status).toBe(200);
    expect((await get(server.url, "/files/eval/run1/sympy__sympy-20590/report.json")).status).toBe(200);
  });

  test("the trajectory API answers with the normalised view and its evaluation", async () => {
    const rel = "sympy__sympy-20590/sympy__sympy-20590.traj.json";
    const res = await get(server.url, `/api/trajectory?path=${encodeURIComponent(rel)}`);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.file).toBe(rel);
    expect(body.view.steps).toHaveLength(5);
    expect(body.eval.failToPassFailures).toEqual(["test_symbol_slots"]);
  });

  test("a request naming another host is refused (DNS rebinding); only GET and HEAD", async () => {
    expect((await get(server.url, "/api/overview", { host: "evil.example:80" })).status).toBe(403);
    expect((await get(server.url, "/api/overview", { method: "POST" })).status).toBe(405);
    expect(
      (await get(server.url, "/api/overview", { host: `localhost:${new URL(server.url).port}` })).status,
    ).toBe(200);
  });
});

describe("viewer server on a single trajectory file", () => {
  const dir = makeRunFolder();
  const file = join(dir, "psf__requests-2317", "psf__requests-2317.traj.json");
  let server: InspectServer;
  beforeAll(async () => {
    server = await startInspectServer({ path: file, port: 0 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("serves that file and nothing beside it", async () => {
    expect(JSON.parse((await get(server.url, "/api/overview")).body)).toEqual({
      mode: "trajectory",
      name: "psf__requests-2317.traj.json",
      file: "psf__requests-2317.traj.json",
    });
    expect((await get(server.url, "/files/psf__requests-2317.traj.json")).status).toBe(200);
    expect((await get(server.url, "/api/trajectory?path=psf__requests-2317.traj.json")).status).toBe(200);
    expect((await get(server.url, "/files/../preds.json")).status).toBe(404);
    expect((await get(server.url, "/files/other.traj.json")).status).toBe(404);
  });
});

test("safeSegments rejects every way out", () => {
  expect(safeSegments("a/b.json", true)).toEqual(["a", "b.json"]);
  expect(safeSegments("a%20b/c", true)).toEqual(["a b", "c"]);
  for (const bad of ["", "/a", "a//b", "a/../b", "%2e%2e/a", "a%2Fb", "..%5Cx", "%00", "%E0%A4%A"]) {
    expect(safeSegments(bad, true)).toBeNull();
  }
  expect(safeSegments("../a", false)).toBeNull();
});

test("patchloop inspect on a missing PATH: exit 2 with a message", async () => {
  const res = await runCli(["inspect", "/nonexistent/run-dir", "--port", "0"]);
  expect(res.code).toBe(2);
  expect(res.stderr).toContain(
    "patchloop inspect: /nonexistent/run-dir does not exist; pass a run folder (made by patchloop swebench -o DIR) or a trajectory file",
  );
});

test("patchloop inspect on a file that is not a trajectory (a dataset file): exit 2 saying what it takes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-inspect-"));
  const file = join(dir, "tiny.jsonl");
  writeFileSync(file, '{"instance_id": "a__b-1", "repo": "a/b"}\n{"instance_id": "a__b-2", "repo": "a/b"}\n');
  try {
    const res = await runCli(["inspect", file, "--port", "0"]);
    expect([res.code, res.stdout]).toEqual([2, ""]);
    expect(res.stderr).toMatch(
      new RegExp(
        `^patchloop inspect: ${file} is not a trajectory: ${file} is not valid JSON \\(.+\\); \\d+ bytes were read\n` +
          "inspect takes a run folder \\(patchloop swebench -o DIR, patchloop run -o DIR\\) or one trajectory file \\(\\.traj\\.json, \\.traj\\)\n$",
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("patchloop inspect --port rejects a non-number", async () => {
  const res = await runCli(["inspect", ".", "--port", "http"]);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain("expected a number from 0 to 65535 (0: any free port)");
});

test("patchloop inspect on a port in use: exit 2 naming the port", async () => {
  const blocker = createServer();
  await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done));
  const port = (blocker.address() as { port: number }).port;
  try {
    const res = await runCli(["inspect", ".", "--port", String(port)]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      `port ${port} on 127.0.0.1 is in use; choose another with --port (0: any free)`,
    );
  } finally {
    blocker.close();
  }
});

test("patchloop inspect prints its URL, serves, and stops cleanly on SIGTERM", async () => {
  const dir = makeRunFolder();
  const child = spawnCli(["inspect", dir, "--port", "0"]);
  try {
    const url = await waitForUrl(child);
    expect((await get(url, "/api/overview")).status).toBe(200);
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  } finally {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("inspectHint: the line the demo prints, quoted for the shell when needed", () => {
  expect(inspectHint("runs/demo")).toBe("open this run with: patchloop inspect runs/demo");
  expect(inspectHint("/tmp/my run's")).toBe("open this run with: patchloop inspect '/tmp/my run'\\''s'");
});
