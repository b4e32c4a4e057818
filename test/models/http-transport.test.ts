import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createAgents, ResponseTooLargeError, sendRequest } from "../../src/models/http-transport.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("http transport", () => {
  it("sends method, headers and body, and decodes a gzip response", async () => {
    let seen: { method?: string; auth?: string; body: string } = { body: "" };
    const url = await listen((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen = { method: req.method, auth: req.headers.authorization, body };
        res.writeHead(201, { "content-type": "application/json", "content-encoding": "gzip", "x-a": "1" });
        res.end(gzipSync('{"ok":true}'));
      });
    });
    const res = await sendRequest(
      `${url}/v1/x`,
      { method: "POST", headers: { authorization: "Bearer k" }, body: '{"q":1}' },
      createAgents(),
    );
    expect(seen).toEqual({ method: "POST", auth: "Bearer k", body: '{"q":1}' });
    expect([res.status, res.bodyText, res.headers.get("x-a")]).toEqual([201, '{"ok":true}', "1"]);
  });

  it("rejects with an AbortError when the signal fires", async () => {
    const url = await listen(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await sendRequest(url, { method: "POST", signal: controller.signal }, createAgents()).catch(
      (e) => e,
    );
    expect((err as Error).name).toBe("AbortError");
  });

  it("keeps a body of exactly the cap, and refuses one declared larger before reading any of it", async () => {
    const url = await listen((req, res) => {
      if (req.url === "/exact") {
        res.end("x".repeat(1000));
        return;
      }
      // announces more than the cap, sends a little, then holds the connection open
      res.writeHead(200, { "content-length": "5000" });
      res.write("y".repeat(10));
    });
    const exact = await sendRequest(`${url}/exact`, { method: "GET" }, createAgents(), 1000);
    expect(exact.bodyText).toBe("x".repeat(1000));
    const err = await sendRequest(`${url}/declared`, { method: "GET" }, createAgents(), 1000).catch((e) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect([(err as Error).message, (err as ResponseTooLargeError).url]).toEqual([
      "the response passed 1000 bytes (sent); reading stopped there",
      `${url}/declared`,
    ]);
  });
});
