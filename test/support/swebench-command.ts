import { Command } from "commander";
import { register } from "../../src/cli/swebench.js";

/** Whether Debian's Python has pytest (the fixture repositories' tests run with it). */
export { havePytest } from "./pytest-skips.js";

/** `patchloop swebench ARGS` in this process: its exit code and what it printed. */
export async function swebench(
  args: string[],
): Promise<{ code: number | undefined; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command("patchloop").exitOverride();
  register(program, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    tty: false,
    progressIntervalMs: 600_000,
  });
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "patchloop", "swebench", ...args]);
    return { code: process.exitCode as number | undefined, out: out.join(""), err: err.join("") };
  } finally {
    process.exitCode = undefined;
  }
}

/** A fake-server reply that runs one bash command. */
export const bashReply = (command: string) => ({
  type: "reply" as const,
  content: "step",
  toolCalls: [{ name: "bash", arguments: { command } }],
});
