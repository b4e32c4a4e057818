/**
 * Ctrl-C on a terminal while the agent works (docs/interactive.md):
 * - during a model call or a command, the first Ctrl-C stops that call only (its own AbortSignal,
 *   see `call`), and the person gets a prompt;
 * - between calls it asks for the prompt before the next one (`takePending`);
 * - a second Ctrl-C before the prompt shows ends the run as Interrupted (the run's signal), and a
 *   third quits at once (exit status 130).
 * At a prompt the terminal is in raw mode and Ctrl-C reaches the prompt instead (prompts.ts).
 */
export class Keyboard {
  private current: AbortController | null = null;
  /** What `current` runs, for the line a Ctrl-C prints. */
  private currentWhat: "call" | "command" = "call";
  private pending = false;
  private presses = 0;
  private readonly onSigint = () => this.press();

  constructor(
    private readonly run: AbortController,
    private readonly say: (line: string) => void,
    private readonly quit: () => void = () => process.exit(130),
  ) {}

  /** Starts listening to SIGINT (the caller keeps SIGTERM for itself). */
  listen(): void {
    process.on("SIGINT", this.onSigint);
  }

  close(): void {
    process.off("SIGINT", this.onSigint);
  }

  /** What one Ctrl-C does now (the SIGINT handler; tests call it directly too). */
  press(): void {
    if (this.run.signal.aborted) {
      this.quit();
      return;
    }
    this.presses++;
    if (this.presses >= 2) {
      this.say(
        "Ctrl-C again: ending the run (Interrupted; the patch is kept). Ctrl-C once more quits at once.",
      );
      this.run.abort();
      return;
    }
    if (this.current && !this.current.signal.aborted) {
      this.say(
        `Ctrl-C: stopping this ${this.currentWhat}; you get a prompt next (Ctrl-C again ends the run).`,
      );
      this.current.abort();
      return;
    }
    this.say("Ctrl-C: you get a prompt before the next step (Ctrl-C again ends the run).");
    this.pending = true;
  }

  /**
   * Runs one model call or command with a signal that the run's signal and the next Ctrl-C both
   * abort. `interrupted` is true when Ctrl-C (not the run ending) stopped it. `what`: a model
   * `call` or a `command` (an action), as the Ctrl-C line names it.
   */
  async call<T>(
    body: (signal: AbortSignal) => Promise<T>,
    what: "call" | "command" = "call",
  ): Promise<{ value: T; interrupted: boolean }> {
    const own = new AbortController();
    this.current = own;
    this.currentWhat = what;
    cookedTerminal();
    try {
      const value = await body(AbortSignal.any([this.run.signal, own.signal]));
      return { value, interrupted: own.signal.aborted && !this.run.signal.aborted };
    } finally {
      this.current = null;
    }
  }

  /** Whether a Ctrl-C between calls asked for the prompt (and forgets it). */
  takePending(): boolean {
    const was = this.pending;
    this.pending = false;
    return was;
  }

  /** The person reached a prompt: the next Ctrl-C counts as a first one again. */
  settled(): void {
    this.presses = 0;
    this.pending = false;
  }
}

/**
 * Puts the terminal back in its ordinary mode, where Ctrl-C raises SIGINT: a prompt answered by a
 * key typed before it had drawn itself can leave raw mode on, and a Ctrl-C would then go nowhere.
 */
export function cookedTerminal(): void {
  const stdin = process.stdin;
  if (stdin.isTTY && stdin.isRaw) stdin.setRawMode(false);
}
