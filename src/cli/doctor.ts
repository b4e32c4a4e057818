import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { type AgentFlags, addAgentOptions, guarded, loadAgentConfigAsking } from "./common.js";

interface DoctorFlags extends AgentFlags {
  timeout: string;
}

/**
 * `patchloop doctor -m MODEL [--base-url URL] [-c ...]`: checks the model server as the run will
 * use it, in a few small requests, and says what to change (doctor-checks.ts). Exit 0: the run
 * would work; 1: it would not (the reason is the last line); 2: a usage or config error.
 */
export async function doctorCommand(flags: DoctorFlags, out: (text: string) => void): Promise<number> {
  const timeoutS = Number(flags.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0)
    throw new ConfigError(`--timeout ${flags.timeout}: give the seconds one request may take, e.g. 60`);
  const { config, family } = await loadAgentConfigAsking(flags, "default");
  if (!config.model.model_name)
    throw new ConfigError("no model: pass -m openai/<served name> --base-url http://HOST:PORT/v1");
  const { runDoctor, formatReport } = await import("./doctor-checks.js");
  let report: Awaited<ReturnType<typeof runDoctor>>;
  try {
    report = await runDoctor({ config, family, timeoutS });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  out(formatReport(report));
  return report.failures.length === 0 ? 0 : 1;
}

export function register(program: Command): void {
  addAgentOptions(
    program
      .command("doctor")
      .description(
        "check a model server before a run: it answers, serves the model, its context, tool calls, reasoning, prefix cache, metrics",
      )
      .option("--timeout <SECONDS>", "seconds one request may take", "60"),
  ).action((flags: DoctorFlags) => guarded(() => doctorCommand(flags, (text) => process.stdout.write(text))));
}
