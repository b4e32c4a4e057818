import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImagesPullFlags, register as registerImages, runImagesPull } from "../../src/cli/images.js";
import { loadConfig } from "../../src/config/load.js";
import {
  archOf,
  imageForRow,
  imageTemplateProblem,
  instanceImageName,
  type PullProgress,
  pullImages,
} from "../../src/dataset/images.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { CONTAINER_INIT, createContainerEnvironment } from "../../src/environments/container.js";
import { SWEBENCH_DATA, swebenchRows } from "../support/data.js";
import { BASE_IMAGE, describeWithEngine, testImage } from "../support/engines.js";

/** A registry address on loopback where nothing listens: pulls fail at once, without DNS. */
const REFUSED = "127.0.0.1:9/patchloop-test";

describe("instanceImageName", () => {
  it("follows the harness's naming", () => {
    expect(instanceImageName("django__django-11099")).toBe(
      "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
    );
    expect(instanceImageName("Owner__Repo-7")).toBe(
      "docker.io/swebench/sweb.eval.x86_64.owner_1776_repo-7:latest",
    );
  });

  it("gives every Lite row a distinct valid reference", () => {
    const names = swebenchRows("swe-bench-lite.test.jsonl").map((r) => instanceImageName(r.instance_id));
    expect(names).toHaveLength(300);
    expect(new Set(names).size).toBe(300);
    for (const n of names)
      expect(n).toMatch(/^docker\.io\/swebench\/sweb\.eval\.x86_64\.[a-z0-9_.-]+:latest$/);
  });
});

describe("image templates and platforms", () => {
  it("fills {id}, {instance_id} and {arch}; the default is the harness's Docker Hub name", () => {
    expect(instanceImageName("django__django-11099", { platform: "linux/amd64" })).toBe(
      "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
    );
    expect(
      instanceImageName("Django__Django-11099", {
        template: "127.0.0.1:5000/sweb.eval.{arch}.{instance_id}:latest",
        platform: "linux/arm64/v8",
      }),
    ).toBe("127.0.0.1:5000/sweb.eval.arm64.django__django-11099:latest");
    expect(archOf(null)).toBe("x86_64");
    expect(archOf("linux/aarch64")).toBe("arm64");
    expect(archOf("linux/s390x")).toBe("s390x");
  });

  it("says what is wrong with a template", () => {
    expect(imageTemplateProblem("reg/{name}:1")).toBe(
      "unknown field {name}; the fields are {id}, {instance_id}, {id_s}, {tag}, {arch}",
    );
    expect(imageTemplateProblem("reg/{id:1")).toBe("an unmatched { or }");
    expect(imageTemplateProblem("reg/one-image:{arch}")).toBe(
      "no {id}, {instance_id}, {id_s} or {tag}: every instance would get the same image (use environment.image for that)",
    );
    expect(imageTemplateProblem("reg/{id}")).toBeUndefined();
  });

  it("picks environment.image, then the template, then the row's own image, then the harness's name", () => {
    const row = {
      instance_id: "a__b-1",
      image: "v5/row:1",
      image_name: "named/row:1",
    } as unknown as SwebenchInstance;
    const bare = { instance_id: "a__b-1" } as SwebenchInstance;
    expect(imageForRow(row, { image: "one/for-all:1", image_template: "t/{id}" })).toBe("one/for-all:1");
    expect(imageForRow(row, { image_template: "t/{id}:x" })).toBe("t/a_1776_b-1:x");
    expect(imageForRow(row, {})).toBe("v5/row:1");
    expect(imageForRow({ ...bare, image_name: "named/row:1" }, {})).toBe("named/row:1");
    expect(imageForRow(bare, { platform: "linux/arm64" })).toBe(
      "docker.io/swebench/sweb.eval.arm64.a_1776_b-1:latest",
    );
  });

  it("the config refuses a bad template or platform, naming the key", () => {
    expect(() =>
      loadConfig({ configArgs: ["environment.image_template=reg/{nope}"], defaultConfig: "swebench" }),
    ).toThrow(/environment\.image_template.*not a usable image template: unknown field \{nope\}/s);
    expect(() =>
      loadConfig({ configArgs: ["environment.platform=amd64"], defaultConfig: "swebench" }),
    ).toThrow(/environment\.platform.*a platform is os\/arch\[\/variant\], e\.g\. linux\/amd64/s);
    const { config } = loadConfig({
      configArgs: ["environment.platform=linux/amd64", "environment.image_template=r/{id}"],
      defaultConfig: "swebench",
    });
    expect(config.environment).toMatchObject({ platform: "linux/amd64", image_template: "r/{id}" });
  });
});

/** A docker CLI that logs each call's arguments (one line, shell-quoted) to `log` and runs the real one. */
async function loggingDocker(dir: string, log: string): Promise<string> {
  const shim = join(dir, "docker-args");
  await writeFile(shim, `#!/bin/bash\nprintf '%s\\n' "$*" >> ${log}\nexec docker "$@"\n`);
  await chmod(shim, 0o755);
  return shim;
}

/**
 * A minimal Docker registry (distribution API v2) on 127.0.0.1 serving one linux/amd64 image with
 * one layer under every name `test/<name>:<tag>`, or hanging on every manifest request when
 * `hang` is set.
 */
async function startRegistry(dir: string, opts: { hang?: boolean } = {}) {
  await writeFile(join(dir, "hello.txt"), "pulled from the test registry\n");
  execFileSync("tar", ["-cf", join(dir, "layer.tar"), "-C", dir, "hello.txt"]);
  const tar = await readFile(join(dir, "layer.tar"));
  const layer = gzipSync(tar);
  const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: { Cmd: ["/hello.txt"] },
      rootfs: { type: "layers", diff_ids: [sha(tar)] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.v2+json",
      config: {
        mediaType: "application/vnd.docker.container.image.v1+json",
        size: config.length,
        digest: sha(config),
      },
      layers: [
        {
          mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip",
          size: layer.length,
          digest: sha(layer),
        },
      ],
    }),
  );
  const blobs = new Map([
    [sha(config), config],
    [sha(layer), layer],
  ]);
  const hanging: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? "";
    const send = (type: string, body: Buffer, digest?: string) => {
      res.writeHead(200, {
        "Content-Type": type,
        "Content-Length": body.length,
        ...(digest ? { "Docker-Content-Digest": digest } : {}),
      });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (url === "/v2/") return send("application/json", Buffer.from("{}"));
    if (/^\/v2\/.+\/manifests\/[^/]+$/.test(url)) {
      if (opts.hang) return void hanging.push(() => res.destroy());
      if (!url.startsWith("/v2/test/")) return void res.writeHead(404).end();
      return send("application/vnd.docker.distribution.manifest.v2+json", manifest, sha(manifest));
    }
    const blob = /\/blobs\/(sha256:[0-9a-f]+)$/.exec(url);
    if (blob && blobs.has(blob[1])) return send("application/octet-stream", blobs.get(blob[1])!, blob[1]);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const h of hanging) h();
        server.close(() => r());
      }),
  };
}

function docker(args: string[]): string {
  return spawnSync("docker", args, { encoding: "utf8" }).stdout.trim();
}

describeWithEngine("docker", "pullImages with docker", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "patchloop-images-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("skips present images, pulls missing ones, retries and reports failures", async () => {
    const registry = await startRegistry(dir);
    const pulledName = `${registry.host}/test/hello:v1`;
    docker(["rmi", "-f", pulledName]);
    const present = "patchloop-test/present:1";
    docker(["tag", testImage("docker"), present]);
    const missing = `${REFUSED}/none:never`;
    const events: PullProgress[] = [];
    try {
      const summary = await pullImages([present, pulledName, missing, present], {
        executable: "docker",
        parallel: 1,
        retries: 1,
        retryDelay: 0,
        onProgress: (p) => events.push(p),
      });
      expect(summary.present).toEqual([present]);
      expect(summary.pulled).toEqual([pulledName]);
      expect(summary.failed).toEqual([{ name: missing, error: expect.stringMatching(/connection refused/) }]);
      expect(
        events.map(
          (e) => `${e.event} ${e.name === missing ? "missing" : e.name} ${e.try ?? ""} ${e.done}/${e.total}`,
        ),
      ).toEqual([
        `present ${present}  1/3`,
        `pulling ${pulledName} 1 1/3`,
        `pulled ${pulledName} 1 2/3`,
        "pulling missing 1 2/3",
        "retry missing 1 2/3",
        "pulling missing 2 2/3",
        "failed missing 2 3/3",
      ]);
      expect(docker(["image", "inspect", "--format", "{{.Id}}", pulledName])).toMatch(/^sha256:/);
    } finally {
      docker(["rmi", "-f", pulledName, present]);
      await registry.close();
    }
  });

  it("gives up a pull that takes longer than pull_timeout", async () => {
    const registry = await startRegistry(dir, { hang: true });
    try {
      const started = Date.now();
      const summary = await pullImages([`${registry.host}/test/hello:v1`], { pullTimeout: 1, retries: 0 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(summary.failed[0].error).toMatch(/took longer than 1 s \(pull_timeout\)/);
    } finally {
      await registry.close();
    }
  });

  it("keeps at most `parallel` pulls running", async () => {
    // The real docker CLI behind a wrapper that logs when each pull starts and ends.
    const log = join(dir, "pulls.log");
    const shim = join(dir, "docker-logged");
    await writeFile(
      shim,
      `#!/bin/bash\nif [ "$1" = pull ]; then echo start >> ${log}; sleep 0.3; fi\n` +
        `docker "$@"; rc=$?\nif [ "$1" = pull ]; then echo end >> ${log}; fi\nexit $rc\n`,
    );
    await chmod(shim, 0o755);
    const names = Array.from({ length: 6 }, (_, i) => `${REFUSED}/none-${i}:never`);
    const summary = await pullImages(names, { executable: shim, parallel: 2, retries: 0 });
    expect(summary.failed.map((f) => f.name).sort()).toEqual([...names].sort());
    let running = 0;
    let most = 0;
    for (const line of (await readFile(log, "utf8")).trim().split("\n")) {
      running += line === "start" ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(running).toBe(0);
    expect(most).toBe(2);
  });
});

describeWithEngine("podman", "pullImages with podman", () => {
  it("finds a present image by its short name and reports a failed pull", async () => {
    const missing = `${REFUSED}/none:never`;
    const summary = await pullImages([BASE_IMAGE, missing], {
      executable: "podman",
      retries: 0,
    });
    expect(summary.present).toEqual([BASE_IMAGE]);
    expect(summary.failed).toEqual([{ name: missing, error: expect.stringMatching(/connection refused/) }]);
  });
});

const flags = (over: Partial<ImagesPullFlags>): ImagesPullFlags => ({
  subset: "lite",
  split: "test",
  parallel: "2",
  pullTimeout: "600",
  retries: "0",
  executable: "docker",
  ...over,
});
const io = (tty = false) => {
  const seen = { out: "", err: "" };
  return {
    seen,
    io: {
      out: (t: string) => {
        seen.out += t;
      },
      err: (t: string) => {
        seen.err += t;
      },
      tty,
    },
  };
};

describe("patchloop images pull (CLI body)", () => {
  const lite = join(SWEBENCH_DATA, "swe-bench-lite.test.jsonl");

  it("lists the images of a selection with --dry-run", async () => {
    const { seen, io: sink } = io();
    const code = await runImagesPull(
      flags({ subset: lite, slice: "0:3", filter: "astropy", dryRun: true }),
      sink,
    );
    expect(code).toBe(0);
    expect(seen.out).toBe(
      [
        "docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest",
        "docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-14182:latest",
        "docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-14365:latest",
        "",
      ].join("\n"),
    );
  });

  it("rejects bad flags and an empty selection with status 2", async () => {
    const bad = io();
    expect(await runImagesPull(flags({ parallel: "0" }), bad.io)).toBe(2);
    expect(bad.seen.err).toBe('error: -P needs a whole number of at least 1, got "0"\n');
    const missing = io();
    expect(await runImagesPull(flags({ subset: "/nonexistent/rows.jsonl" }), missing.io)).toBe(2);
    expect(missing.seen.err).toMatch(/dataset file not found: \/nonexistent\/rows\.jsonl/);
    const none = io();
    expect(await runImagesPull(flags({ subset: lite, filter: "no-such-repo" }), none.io)).toBe(2);
    expect(none.seen.err).toMatch(/no instances selected/);
  });

  it("registers `images pull` with its flags", () => {
    const program = new Command("patchloop");
    registerImages(program);
    const pull = program.commands
      .find((c) => c.name() === "images")
      ?.commands.find((c) => c.name() === "pull");
    expect(pull?.options.map((o) => o.long)).toEqual([
      "--subset",
      "--split",
      "--slice",
      "--filter",
      "--parallel",
      "--pull-timeout",
      "--retries",
      "--executable",
      "--dry-run",
      "--config",
      "--platform",
    ]);
  });
});

describeWithEngine("docker", "patchloop images pull with docker", () => {
  it("pulls per row image_name, shows progress, ends with the summary", async () => {
    const dir = await mkdtemp(join(tmpdir(), "patchloop-images-cli-"));
    const present = "patchloop-test/cli-present:1";
    docker(["tag", testImage("docker"), present]);
    const rows = swebenchRows("swe-bench-lite.test.jsonl").slice(0, 2);
    rows[0].image_name = present;
    rows[1].image_name = `${REFUSED}/cli-missing:never`;
    const file = join(dir, "rows.jsonl");
    await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    try {
      const plain = io();
      expect(await runImagesPull(flags({ subset: file, parallel: "1" }), plain.io)).toBe(1);
      expect(plain.seen.out).toMatch(
        new RegExp(
          `^pulled 0, present 1, failed 1; platform linux/amd64\\n  failed ${REFUSED}/cli-missing:never: .*connection refused`,
        ),
      );
      expect(plain.seen.err.split("\n").slice(0, 4)).toEqual([
        "2 images with docker, 1 at a time",
        `[1/2] present ${present} (linux/amd64)`,
        `[1/2] pulling ${REFUSED}/cli-missing:never`,
        expect.stringMatching(
          new RegExp(`^\\[2/2\\] FAILED ${REFUSED}/cli-missing:never: .*connection refused`),
        ),
      ]);
      const tty = io(true);
      expect(await runImagesPull(flags({ subset: file, parallel: "1" }), tty.io)).toBe(1);
      expect(tty.seen.err).toContain("\r\x1b[2K[2/2] pulled 0 present 1 failed 1");
    } finally {
      docker(["rmi", "-f", present]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describeWithEngine("docker", "image template and platform, against a registry on 127.0.0.1", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "patchloop-images-platform-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("images pull names each image by the template and pulls it for the platform", async () => {
    const registry = await startRegistry(dir);
    const log = join(dir, "pull-args.log");
    const shim = await loggingDocker(dir, log);
    const rows = swebenchRows("swe-bench-lite.test.jsonl").slice(0, 2);
    const file = join(dir, "rows.jsonl");
    await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const names = rows.map((r) => `${registry.host}/test/sweb.eval.x86_64.${r.instance_id.toLowerCase()}:v1`);
    docker(["rmi", "-f", ...names]);
    try {
      const seen = io();
      const code = await runImagesPull(
        flags({
          subset: file,
          parallel: "1",
          executable: shim,
          config: [`environment.image_template=${registry.host}/test/sweb.eval.{arch}.{instance_id}:v1`],
          platform: "linux/amd64",
        }),
        seen.io,
      );
      expect(code).toBe(0);
      expect(seen.seen.out).toBe(
        "pulled 2, present 0, failed 0; platform linux/amd64 (asked for linux/amd64)\n",
      );
      expect(seen.seen.err.split("\n")).toEqual([
        `2 images with ${shim}, 1 at a time, platform linux/amd64`,
        `[0/2] pulling ${names[0]}`,
        `[1/2] pulled ${names[0]} (linux/amd64)`,
        `[1/2] pulling ${names[1]}`,
        `[2/2] pulled ${names[1]} (linux/amd64)`,
        "",
      ]);
      const pulls = (await readFile(log, "utf8")).split("\n").filter((l) => l.startsWith("pull "));
      expect(pulls).toEqual(names.map((n) => `pull --quiet --platform linux/amd64 ${n}`));
      // Present for that platform: not pulled again.
      const again = io();
      expect(
        await runImagesPull(
          flags({
            subset: file,
            executable: shim,
            config: [`environment.image_template=${registry.host}/test/sweb.eval.{arch}.{instance_id}:v1`],
            platform: "linux/amd64",
          }),
          again.io,
        ),
      ).toBe(0);
      expect(again.seen.out).toBe(
        "pulled 0, present 2, failed 0; platform linux/amd64 (asked for linux/amd64)\n",
      );
    } finally {
      docker(["rmi", "-f", ...names]);
      await registry.close();
    }
  });

  it("pullImages: an image present for another platform is pulled again for the one asked", async () => {
    const registry = await startRegistry(dir);
    const name = `${registry.host}/test/other-platform:v1`;
    const log = join(dir, "other-args.log");
    const shim = await loggingDocker(dir, log);
    try {
      const first = await pullImages([name], { executable: shim, platform: "linux/amd64", retries: 0 });
      expect(first).toEqual({
        pulled: [name],
        present: [],
        failed: [],
        platforms: { [name]: "linux/amd64" },
      });
      const second = await pullImages([name], { executable: shim, platform: "linux/arm64", retries: 0 });
      expect(second.present).toEqual([]);
      const pulls = (await readFile(log, "utf8")).split("\n").filter((l) => l.startsWith("pull "));
      expect(pulls).toEqual([
        `pull --quiet --platform linux/amd64 ${name}`,
        `pull --quiet --platform linux/arm64 ${name}`,
      ]);
    } finally {
      docker(["rmi", "-f", name]);
      await registry.close();
    }
  });

  it("a container environment runs with --platform right after its name", async () => {
    const log = join(dir, "run-args.log");
    const shim = await loggingDocker(dir, log);
    const env = await createContainerEnvironment({
      executable: shim,
      image: testImage("docker"),
      platform: "linux/amd64",
      network: "none",
    });
    try {
      expect((await env.exec("echo ok")).output).toBe("ok\n");
    } finally {
      await env.close();
    }
    const calls = (await readFile(log, "utf8")).split("\n");
    expect(calls.filter((l) => l.startsWith("pull "))).toEqual([]);
    const run = calls.find((l) => l.startsWith("run ")) ?? "";
    expect(run).toMatch(
      /^run -d --rm --pull never --name patchloop-adhoc-[0-9a-f]{8} --platform linux\/amd64 --label /,
    );
    // The image, then its main process: the reaping init of container.ts, for 14400 s.
    expect(run.endsWith(` ${testImage("docker")} -c ${CONTAINER_INIT} patchloop-init 14400`)).toBe(true);
  });
});
