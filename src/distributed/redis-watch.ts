import type { Redis } from "ioredis";

/**
 * Tells the person when the queue's Redis stops answering and when it is back, once each way: the
 * coordinator and the workers wait for it (commands are kept until it answers) and lose nothing.
 */
export function watchRedis(
  client: Redis,
  shown: string,
  say: (line: string) => void,
  whatWaits: string,
): void {
  let down = false;
  const lost = (why: string) => {
    if (down) return;
    down = true;
    say(`the queue at ${shown} does not answer (${why}); waiting for it: ${whatWaits}`);
  };
  client.on("error", (err: Error & { code?: string }) => lost(err.code ?? err.message));
  // a connection that closed and is being made again: said at once, even when the first attempt
  // to reconnect has not failed yet (a short restart raises no error at all)
  client.on("reconnecting", () => lost("connection closed"));
  client.on("ready", () => {
    if (!down) return;
    down = false;
    say(`the queue at ${shown} answers again`);
  });
}

/** Waits until Redis answers a PING, or throws after `timeoutMs` with what to do. */
export async function reachable(client: Redis, shown: string, timeoutMs = 10_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the queue at ${shown} does not answer within ${timeoutMs / 1000} s: start redis-server there ` +
              "(docs/distributed.md), or check --queue",
          ),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([client.ping(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
