import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createContainerEnvironment } from "../../src/environments/container.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import type { Environment } from "../../src/environments/types.js";
import { parseListing, readThroughEnvironment } from "../../src/localize/read-environment.js";
import { DocStore } from "../../src/localize/repo-files.js";
import { describeWithEngine, testImage } from "../support/engines.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** Counts the environment's calls: the read must not grow with the number of files. */
function counting(env: Environment): { env: Environment; calls: { exec: number; readFile: number } } {
  const calls = { exec: 0, readFile: 0 };
  const wrapped: Environment = Object.create(env);
  wrapped.exec = (command, options) => {
    calls.exec++;
    return env.exec(command, options);
  };
  wrapped.readFile = (path) => {
    calls.readFile++;
    return env.readFile(path);
  };
  return { env: wrapped, calls };
}

function project(dir: string, files: number): void {
  const all: Record<string, string> = {};
  for (let i = 0; i < files; i++) all[`pkg/mod_${i}.py`] = `def func_${i}():\n    return ${i}\n`;
  all["pkg/space name ü.py"] = "def odd_name():\n    pass\n";
  makeRepo(dir, all);
  // untracked files are not the repository's; binary and huge tracked ones are skipped
  writeFileSync(join(dir, "scratch.py"), "def scratch(): pass\n");
}

describe("reading a repository through an environment (local)", () => {
  it("reads every tracked text file in a constant number of calls, skipping binary and huge ones", async () => {
    const counts: Array<{ exec: number; readFile: number }> = [];
    for (const n of [5, 120]) {
      const dir = join(tempDir(), "repo");
      mkdirSync(dir);
      writeFileSync(join(dir, "blob.dat"), Buffer.from([1, 0, 2, 0]));
      writeFileSync(join(dir, "big.py"), `x = 1\n${"# filler\n".repeat(500)}`);
      project(dir, n);
      const { env, calls } = counting(createLocalEnvironment({ cwd: dir }));
      try {
        const s = await readThroughEnvironment(env, new DocStore(), { maxFileBytes: 2000 });
        expect(s.files.map((f) => f.path)).toEqual(
          [...Array.from({ length: n }, (_, i) => `pkg/mod_${i}.py`), "pkg/space name ü.py"].sort(),
        );
        expect(s.skipped).toEqual({ binary: 1, huge: 1, unreadable: 0 });
        expect(s.files.find((f) => f.path === "pkg/mod_3.py")?.doc.text).toBe(
          "def func_3():\n    return 3\n",
        );
      } finally {
        await env.close();
      }
      counts.push({ ...calls });
    }
    expect(counts[0]).toEqual({ exec: 3, readFile: 1 });
    expect(counts[1]).toEqual(counts[0]);
  });

  it("reads a folder that is not a git work tree (every file outside .git and caches)", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "__pycache__"));
    writeFileSync(join(dir, "src", "a.py"), "def a(): pass\n");
    writeFileSync(join(dir, "__pycache__", "a.cpython-311.pyc"), "compiled");
    const env = createLocalEnvironment({ cwd: dir });
    try {
      const s = await readThroughEnvironment(env, new DocStore(), { maxFileBytes: 1000 });
      expect(s.files.map((f) => f.path)).toEqual(["src/a.py"]);
    } finally {
      await env.close();
    }
  });

  it("says which folder could not be listed", async () => {
    const env = createLocalEnvironment({ cwd: tempDir() });
    try {
      await expect(
        readThroughEnvironment(env, new DocStore(), { maxFileBytes: 1000 }, { root: "/nonexistent/where" }),
      ).rejects.toThrow(/^cannot list the files of \/nonexistent\/where in the local environment \(exit 3\)/);
    } finally {
      await env.close();
    }
  });

  it("parses the listing's entries (size, then the path; NUL-separated)", () => {
    expect(parseListing("12 ./a.py\u000034 ./dir/b c.py\u0000")).toEqual([
      { path: "a.py", size: 12 },
      { path: "dir/b c.py", size: 34 },
    ]);
  });
});

describeWithEngine("docker", "reading a repository through a docker container", () => {
  const envs: Environment[] = [];
  afterAll(async () => {
    for (const e of envs) await e.close();
  });
  it("reads a repository that lives in the container (one listing, one archive, one read, one removal)", async () => {
    const env = await createContainerEnvironment({
      executable: "docker",
      image: testImage("docker"),
      network: "none",
      runId: "localize-test",
    });
    envs.push(env);
    const setup = await env.exec(
      "mkdir -p /tmp/proj/pkg && cd /tmp/proj && printf 'def inside():\\n    pass\\n' > pkg/inside.py && printf 'a\\0b' > pkg/data.bin",
      { timeout: 60 },
    );
    expect(setup.output).toBe("");
    expect(setup.returncode).toBe(0);
    const { env: counted, calls } = counting(env);
    const s = await readThroughEnvironment(
      counted,
      new DocStore(),
      { maxFileBytes: 10_000 },
      { root: "/tmp/proj" },
    );
    expect(s.files.map((f) => f.path)).toEqual(["pkg/inside.py"]);
    expect(s.files[0].doc.text).toBe("def inside():\n    pass\n");
    expect(s.skipped).toEqual({ binary: 1, huge: 0, unreadable: 0 });
    expect(calls).toEqual({ exec: 3, readFile: 1 });
    const left = await env.exec("ls /tmp | grep -c patchloop-localize || true", { timeout: 30 });
    expect(left.output.trim()).toBe("0");
  });
});
