import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import type { FakeLlmServer } from "../../src/testing/fake-llm-server.js";

export const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "patchloop.js");

/** Keys as a terminal sends them. */
export const KEY = { enter: "\r", down: "\x1b[B", up: "\x1b[A", ctrlC: "\x03", ctrlU: "\x15", end: "\x1b[F" };

/** Terminal output without escape sequences, carriage returns folded into newlines. */
export function plain(raw: string): string {
  return raw
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b[\]P^_][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
    .replace(/\x1b[()][0-9A-Za-z]/g, "")
    .replace(/\x1b[=>78]/g, "")
    .replace(/\r\n?/g, "\n");
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface Pty {
  /** Everything printed so far, without escape sequences. */
  text(): string;
  /** Sends keys (see KEY) or text. */
  send(keys: string): void;
  /**
   * Waits until `what` appears after the previous match (so each wait finds the next occurrence)
   * and returns the text from there; fails with the end of the screen when it does not come.
   */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<string>;
  /** The exit status of the command (script -e passes it on). */
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * Runs the built CLI in a pseudo-terminal (util-linux `script`), 160 columns wide, as a person's
 * terminal would: stdin and stdout are a TTY, Ctrl-C sends SIGINT through the terminal's line
 * discipline, prompts get raw keys.
 */
export function cliInPty(args: string[], o: { cwd: string; env?: Record<string, string> }): Pty {
  const command = `stty cols 160 rows 50; exec ${[process.execPath, BIN, ...args].map(quote).join(" ")}`;
  const child: ChildProcess = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd: o.cwd,
    env: { ...process.env, TERM: "xterm-256color", NO_COLOR: "", ...o.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let from = 0;
  child.stdout?.on("data", (c: Buffer) => {
    raw += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    raw += c.toString("utf8");
  });
  child.stdin?.on("error", () => {});
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let done = false;
  exited.then(() => {
    done = true;
  });
  return {
    text: () => plain(raw),
    send: (keys) => {
      child.stdin?.write(keys);
    },
    exited,
    kill: () => child.kill("SIGKILL"),
    async waitFor(what, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const text = plain(raw);
        const rest = text.slice(from);
        const at = typeof what === "string" ? rest.indexOf(what) : rest.search(what);
        if (at >= 0) {
          const len = typeof what === "string" ? what.length : (rest.slice(at).match(what)?.[0].length ?? 0);
          from += at + len;
          return rest.slice(at);
        }
        if (Date.now() > until || (done && plain(raw) === text)) {
          if (process.env.PATCHLOOP_PTY_DUMP) writeFileSync(process.env.PATCHLOOP_PTY_DUMP, raw);
          throw new Error(
            `waited ${timeoutMs} ms for ${String(what)}${done ? " (the program ended)" : ""}; the terminal shows:\n${text.slice(-3000)}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** The fake model server and the terminal a test started: closed and killed after each test. */
export function useServerAndPty(): { server?: FakeLlmServer; pty?: Pty } {
  const live: { server?: FakeLlmServer; pty?: Pty } = {};
  afterEach(async () => {
    live.pty?.kill();
    live.pty = undefined;
    await live.server?.close();
    live.server = undefined;
  });
  return live;
}
