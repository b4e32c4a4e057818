import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createLocalEnvironment } from "../../src/environments/local.js";
import type { Environment } from "../../src/environments/types.js";
import type { ToolContext } from "../../src/tools/base/types.js";

/** A temporary directory with a real local environment rooted in it. */
export interface Sandbox {
  dir: string;
  env: Environment;
  ctx: ToolContext;
  /** Absolute path of a file in the sandbox. */
  path(rel: string): string;
  write(rel: string, data: string | Buffer): string;
  read(rel: string): Buffer;
  cleanup(): Promise<void>;
}

export function makeSandbox(options: { vision?: boolean; timeout?: number } = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-tools-"));
  const env = createLocalEnvironment({ cwd: dir });
  const path = (rel: string) => join(dir, rel);
  return {
    dir,
    env,
    ctx: { env, timeout: options.timeout ?? 20, vision: options.vision ?? false },
    path,
    write(rel, data) {
      mkdirSync(dirname(path(rel)), { recursive: true });
      writeFileSync(path(rel), data);
      return path(rel);
    },
    read: (rel) => readFileSync(path(rel)),
    async cleanup() {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
