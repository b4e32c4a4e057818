import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A running drain-server.ts: its URL, its counters, and a way to stop it. */
export interface DrainServer {
  url: string;
  counters(): Promise<{ requests: number; bytes: number; firstRequestAt: number | null }>;
  close(): Promise<void>;
}

/** Starts drain-server.ts in its own process, answering with a bash call running `command`. */
export function startDrainServer(command = "true"): Promise<DrainServer> {
  const child = fork(fileURLToPath(new URL("./drain-server.js", import.meta.url)), [command]);
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once("message", (m) => resolve(m as Record<string, unknown>));
      child.once("exit", (code) => reject(new Error(`bench: the drain server exited (${code})`)));
    });
  return next().then((hello) => ({
    url: String(hello.url),
    async counters() {
      const answer = next();
      child.send({});
      const m = await answer;
      return {
        requests: Number(m.requests),
        bytes: Number(m.bytes),
        firstRequestAt: m.firstRequestAt === null ? null : Number(m.firstRequestAt),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  }));
}
