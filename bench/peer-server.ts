import { createServer } from "node:http";

/**
 * The model server of the peer benchmark (peer.ts), in a process of its own (`fork`), serving
 * mini-swe-agent and patchloop alike: every chat completion is answered, after argv[3]
 * milliseconds (default 0), with one `bash` tool call running argv[2], in the OpenAI
 * chat-completions shape. Bodies are read to the end but not parsed; the only thing looked at is
 * the conversation's marker `peer-task-N` in the body's first 64 kB (the task text), so that the
 * gap between the end of a reply and the next request of the same conversation can be measured
 * here, where a real server would see it. The parent sends `{ reset: true }` to clear the
 * counters, or anything else to get `{ requests, firstRequestAt, gaps }` back.
 */
const command = process.argv[2] ?? "true";
const latencyMs = Number(process.argv[3] ?? 0);
let requests = 0;
let firstRequestAt: number | null = null;
let gaps: number[] = [];
const lastReplyEnd = new Map<string, number>();
const now = () => performance.timeOrigin + performance.now();

const reply = (n: number) =>
  JSON.stringify({
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 0,
    model: "bench",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: "step",
          tool_calls: [
            {
              id: `call_${n}`,
              type: "function",
              function: { name: "bash", arguments: JSON.stringify({ command }) },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 },
  });

const server = createServer((req, res) => {
  const arrived = now();
  let head = "";
  req.on("data", (c: Buffer) => {
    if (head.length < 65536) head += c.toString("latin1", 0, Math.min(c.length, 65536 - head.length));
  });
  req.on("end", () => {
    if (req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"object":"list","data":[{"id":"bench","object":"model","owned_by":"bench"}]}');
      return;
    }
    if (!req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    requests++;
    firstRequestAt ??= Date.now();
    const key = /peer-task-\d+/.exec(head)?.[0] ?? "";
    const last = lastReplyEnd.get(key);
    if (last !== undefined) gaps.push(arrived - last);
    const body = reply(requests);
    const send = () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body, () => lastReplyEnd.set(key, now()));
    };
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  process.send?.({ url: `http://127.0.0.1:${port}` });
});
process.on("message", (m: { reset?: boolean }) => {
  if (m?.reset) {
    requests = 0;
    firstRequestAt = null;
    gaps = [];
    lastReplyEnd.clear();
  }
  process.send?.({ requests, firstRequestAt, gaps });
});
process.on("disconnect", () => server.close(() => process.exit(0)));
