import { type FakeBehaviour, startFakeLlmServer } from "../src/testing/fake-llm-server.js";

/**
 * The benchmark's model server in a process of its own (started with `fork`), as a real server
 * would be: its work does not count as the scaffold's and does not compete for its event loop.
 * argv[2]: the default behaviour (JSON). Messages: `{ enqueue: [...] }` → `{ pending: n }`.
 */
const server = await startFakeLlmServer({
  record: false,
  defaultBehaviour: JSON.parse(process.argv[2] ?? "null") ?? undefined,
});
process.on("message", (m: { enqueue?: FakeBehaviour[] }) => {
  if (m.enqueue) server.enqueue(...m.enqueue);
  process.send?.({ pending: server.pending() });
});
process.on("disconnect", () => {
  void server.close().then(() => process.exit(0));
});
process.send?.({ url: server.url });
