/**
 * Makes the process's stdout and stderr survive a reader that went away (`| head`, a closed
 * terminal): writes to a broken pipe are dropped instead of crashing the process with an
 * unhandled EPIPE, so a batch keeps running and still saves its files. Other write errors are
 * dropped too: losing console text must never lose work.
 */
export function surviveBrokenPipes(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const s of streams) {
    if (s.listenerCount("error") > 0) continue;
    s.on("error", () => {});
  }
}
