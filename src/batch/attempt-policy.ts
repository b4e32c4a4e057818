import type { ExitStatus } from "../agent/trajectory-types.js";
import type { AttemptPolicy } from "../config/schema.js";
import { normalizePatch } from "../select/normalize.js";

/** What the policy needs of an attempt that ended. */
export interface EndedAttempt {
  attempt: number;
  exit_status: ExitStatus;
  patch: string;
  cost: number;
  /** It ended so that a re-run of the batch runs it again (Interrupted, EnvironmentError, ...). */
  again: boolean;
}

/**
 * What two attempts must share to agree: the text key selection compares patches by
 * (src/select/normalize.ts: whitespace, comments, context lines, hunk positions and file order do
 * not count); null for a patch that changes no code (it agrees with nothing).
 */
function agreementKey(patch: string): string | null {
  const n = normalizePatch(patch);
  return n.kind === "patch" ? n.textKey : null;
}

/** An attempt that gave nothing to choose from: no patch, or a failure of the environment or model. */
export function isFailedAttempt(a: Pick<EndedAttempt, "exit_status" | "patch">): boolean {
  return a.patch.trim() === "" || a.exit_status === "EnvironmentError" || a.exit_status === "ModelError";
}

/** What the policy made of an attempt that ended. */
export interface AttemptEnd {
  /** It runs again (a re-run of the batch starts it): interrupted, or failed with no replacement left. */
  again: boolean;
  /** The attempt that replaces it (N+1, ...), when it failed and `replace_failed` covers it. */
  replacedBy?: number;
}

/**
 * The attempts of one instance in a batch with `run.attempts` N: which start, and when no more
 * should (`run.attempt_policy`): once the attempts cost `cost_limit` together (those still running
 * count with what they spent so far), once `agree` ended attempts submitted the same patch
 * (agreementKey), and up to `replace_failed` extra attempts (numbered N+1, N+2, ...) for attempts
 * that ended failed (no patch, EnvironmentError, ModelError), in the order they ended. A failure
 * that would run again (EnvironmentError, a ModelError after the retries ran out) is final once a
 * replacement covers it, and runs again only when none is left; an interrupted attempt always runs
 * again itself, and is neither counted as ended nor replaced.
 */
export class InstanceAttempts {
  private readonly ended = new Map<number, EndedAttempt>();
  private readonly started = new Set<number>();
  /** What running attempts spent so far, by attempt number. */
  private readonly live = new Map<number, number>();
  /** Attempt numbers planned so far: 1..N, then the replacements added. */
  private planned: number;

  constructor(
    readonly instanceId: string,
    private readonly n: number,
    private readonly policy: AttemptPolicy,
    /** Cost of this instance's attempts that this object does not see end (their earlier runs). */
    private spentBefore = 0,
  ) {
    this.planned = n;
  }

  /**
   * Records an attempt that ended (now or in an earlier run of the folder; `again`: it would run
   * again by the resume rules) and says whether it runs again and what replaces it.
   */
  end(a: EndedAttempt): AttemptEnd {
    this.started.delete(a.attempt);
    this.live.delete(a.attempt);
    const failed = a.exit_status !== "Interrupted" && isFailedAttempt(a);
    const covered = failed && this.failedCount() < this.policy.replace_failed;
    if (a.again && !covered) return { again: true };
    this.ended.set(a.attempt, { ...a, again: false });
    this.planned = this.n + this.replaced();
    return covered ? { again: false, replacedBy: this.n + this.failedCount() } : { again: false };
  }

  /** An attempt started now. */
  start(attempt: number): void {
    this.started.add(attempt);
  }

  /** A running attempt has spent `cost` so far (the cost limit counts it before it ends). */
  spending(attempt: number, cost: number): void {
    if (this.started.has(attempt)) this.live.set(attempt, cost);
  }

  /** Cost of the ended attempts, of the running ones so far, and what earlier runs spent. */
  get cost(): number {
    let c = this.spentBefore;
    for (const a of this.ended.values()) c += a.cost;
    for (const v of this.live.values()) c += v;
    return c;
  }

  /** How many attempts ended (failed ones included). */
  get endedCount(): number {
    return this.ended.size;
  }

  private failedCount(): number {
    let failed = 0;
    for (const a of this.ended.values()) if (isFailedAttempt(a)) failed++;
    return failed;
  }

  /** Attempts that ended failed and are to be replaced (at most `replace_failed`). */
  private replaced(): number {
    return Math.min(this.failedCount(), this.policy.replace_failed);
  }

  /**
   * The attempt whose patch stands for the instance until a selection picks one (preds.json): the
   * first that did not fail, else the first with a patch, else the first that ended; undefined
   * while none has ended.
   */
  chosen(): EndedAttempt | undefined {
    const all = [...this.ended.values()].sort((a, b) => a.attempt - b.attempt);
    return all.find((a) => !isFailedAttempt(a)) ?? all.find((a) => a.patch.trim() !== "") ?? all[0];
  }

  /** The largest number of ended attempts with the same patch. */
  agreeing(): number {
    const groups = new Map<string, number>();
    let best = 0;
    for (const a of this.ended.values()) {
      const k = isFailedAttempt(a) ? null : agreementKey(a.patch);
      if (k === null) continue;
      const n = (groups.get(k) ?? 0) + 1;
      groups.set(k, n);
      best = Math.max(best, n);
    }
    return best;
  }

  /** Why no further attempt of the instance starts, or null when attempts may still start. */
  stopReason(): string | null {
    const { cost_limit, agree } = this.policy;
    if (cost_limit > 0 && this.cost >= cost_limit)
      return `its attempts cost $${this.cost.toFixed(4)}, run.attempt_policy.cost_limit is $${cost_limit}`;
    if (agree > 0 && this.agreeing() >= agree)
      return `${this.agreeing()} attempts agree on one patch (run.attempt_policy.agree ${agree})`;
    return null;
  }

  /** Whether attempt `k` may start now. */
  mayStart(k: number): boolean {
    return k <= this.planned && !this.ended.has(k) && this.stopReason() === null;
  }

  /** Replacement attempts the policy has added beyond those given (numbers above N), in order. */
  replacements(): number[] {
    const out: number[] = [];
    for (let k = this.n + 1; k <= this.planned; k++) out.push(k);
    return out;
  }
}
