import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseQueueUrl } from "../../src/distributed/queue-url.js";
import { queueSpoolName, Spool } from "../../src/distributed/spool.js";

/**
 * Issue 41, finding 4: the spool of unacknowledged results was one folder per host, so a live
 * worker of another Redis adopted 13 finished results of a run it had nothing to do with (and sent
 * them to its own Redis). Spools are now kept per queue.
 */
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A pid that no process has now (a process that ran and ended). */
const deadPid = () => spawnSync("true").pid as number;

/** A result kept by a worker (pid `pid`) of `queue` that is gone. */
function keptByGoneWorker(root: string, queue: string, delivery: string): string {
  const dir = join(root, queueSpoolName(parseQueueUrl(queue)), `${hostname()}-${deadPid()}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${delivery}.json`);
  writeFileSync(file, JSON.stringify({ run: "r1", result: { outcome: { delivery } } }));
  return file;
}

describe("the worker's spool", () => {
  it("is one folder per queue: a worker adopts what gone workers of its own queue kept, never another queue's", async () => {
    const root = mkdtempSync(join(tmpdir(), "patchloop-spool-"));
    roots.push(root);
    const a = "redis://127.0.0.1:6380/0";
    const b = "redis://127.0.0.1:6381/0";
    const theirs = keptByGoneWorker(root, a, "run-a.x__y-1.aaaa");
    const other = new Spool(root, parseQueueUrl(b));
    await other.open();
    expect(other.adopt()).toBe(0);
    expect(await other.all()).toEqual([]);
    expect(existsSync(theirs)).toBe(true);
    const same = new Spool(root, parseQueueUrl(a));
    await same.open();
    expect(same.adopt()).toBe(1);
    expect((await same.all()).map((j) => j.result.outcome.delivery)).toEqual(["run-a.x__y-1.aaaa"]);
    expect(readdirSync(join(root, queueSpoolName(parseQueueUrl(a))))).toEqual([
      `${hostname()}-${process.pid}`,
    ]);
  });

  it("names a queue by its host, port and database only (not its password or how the URL is written)", () => {
    const name = queueSpoolName(parseQueueUrl("redis://127.0.0.1:6379/0"));
    expect(queueSpoolName(parseQueueUrl("redis://:pw-123@127.0.0.1:6379"))).toBe(name);
    expect(queueSpoolName(parseQueueUrl("redis://127.0.0.1:6379/1"))).not.toBe(name);
    expect(queueSpoolName(parseQueueUrl("redis://127.0.0.1:6380/0"))).not.toBe(name);
    expect(name).toMatch(/^queue-[0-9a-f]{16}$/);
  });
});
