import { createServer } from "node:http";

/**
 * The model server of the long-run and start-up benchmarks, in a process of its own (`fork`): it
 * reads each request body to the end without parsing it (a real server's parsing is the server's
 * cost, not the scaffold's) and answers every chat completion with the same reply: one `bash`
 * tool call running argv[2] (default `true`), in the OpenAI chat-completions shape. It counts
 * requests and the bytes it received; the parent asks with any message and gets
 * `{ requests, bytes }` back. Started, it sends `{ url }`.
 */
const command = process.argv[2] ?? "true";
let requests = 0;
let bytes = 0;
let firstRequestAt: number | null = null;
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
  req.on("data", (c: Buffer) => {
    bytes += c.length;
  });
  req.on("end", () => {
    if (req.url?.endsWith("/chat/completions")) {
      requests++;
      firstRequestAt ??= Date.now();
      const body = reply(requests);
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"message":"not found"}}');
    }
  });
});
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  process.send?.({ url: `http://127.0.0.1:${port}` });
});
process.on("message", () => process.send?.({ requests, bytes, firstRequestAt }));
process.on("disconnect", () => server.close(() => process.exit(0)));
