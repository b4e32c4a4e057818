import { spawnSync } from "node:child_process";
import { mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { tempDir } from "../support/tmp.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TARGET = join(ROOT, "bin", "patchloop.js");

/** `./start.sh link` (the set-up's last step alone) with a PATH and HOME of the test's own. */
function link(path: string, home: string, binDir?: string) {
  const env = { ...process.env, PATH: path, HOME: home, PATCHLOOP_BIN_DIR: binDir ?? "" };
  return spawnSync("bash", [join(ROOT, "start.sh"), "link"], { env, encoding: "utf8" });
}

describe("start.sh puts the patchloop command on PATH (README: set-up, then `patchloop run ...`)", () => {
  it("links bin/patchloop.js into the first writable folder on PATH, and `patchloop` then runs from anywhere", () => {
    const dir = tempDir();
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const path = `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
    const r = link(path, join(dir, "home"), bin);
    expect([r.status, r.stdout]).toEqual([0, `patchloop: the command is ${bin}/patchloop -> ${TARGET}\n`]);
    expect(readlinkSync(join(bin, "patchloop"))).toBe(TARGET);
    const ran = spawnSync("patchloop", ["--version"], {
      cwd: dir,
      env: { ...process.env, PATH: path },
      encoding: "utf8",
    });
    expect([ran.status, ran.stdout]).toEqual([0, `${VERSION}\n`]);
    // ~/.local/bin comes first when it is on PATH
    const local = join(dir, "home", ".local", "bin");
    mkdirSync(local, { recursive: true });
    const again = link(`${local}:${path}`, join(dir, "home"));
    expect(again.stdout).toBe(`patchloop: the command is ${local}/patchloop -> ${TARGET}\n`);
  });

  it("leaves another install alone, and says what to type when no folder on PATH can take the link", () => {
    const dir = tempDir();
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "patchloop"), "#!/bin/sh\necho other\n");
    const other = link(`${bin}:/usr/bin:/bin`, join(dir, "home"), bin);
    expect(other.stdout).toBe(
      `patchloop: ${bin}/patchloop exists and is not a link made here; leaving it (this checkout's command: ${TARGET})\n`,
    );
    const none = link("/usr/bin:/bin", join(dir, "home"));
    expect(none.stdout).toBe(
      `patchloop: no folder on PATH is writable here, so the command is not linked. Run it as ${TARGET}, ` +
        `or link it yourself: mkdir -p ~/.local/bin && ln -s ${TARGET} ~/.local/bin/patchloop (with ~/.local/bin on PATH)\n`,
    );
  });
});
