import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeOut } from "../src/index.ts";
import { admin, freshScope } from "./server.ts";

test("the change feed, followed, sees a write that arrives while it waits", async () => {
  const memory = admin();
  const scope = freshScope("team");
  const feed = memory.changes(scope, { since: "now", pollTimeout: 10 });
  const next = feed.next(); // the long-poll is waiting before the write happens
  await new Promise((done) => setTimeout(done, 300));
  const { record } = await memory.write("deploys freeze on Fridays", { scope, sourceAgent: "ops" });
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no change within 15 s")), 15_000));
  const first = await Promise.race([next, timeout]);
  const change = first.value as ChangeOut;
  assert.equal(change.kind, "written");
  assert.equal(change.id, record.id);
  assert.equal(change.scope, scope);
  assert.equal(change.version, 1);
  await feed.return(undefined);

  // Resuming from that entry's cursor misses nothing and repeats nothing.
  await memory.forget(record.id, { wait: true });
  const after: ChangeOut[] = [];
  for await (const c of memory.changes(scope, { since: change.cursor, follow: false })) after.push(c);
  assert.deepEqual(
    after.map((c) => [c.kind, c.id]),
    [["forgotten", record.id]],
  );
  const all: ChangeOut[] = [];
  for await (const c of memory.changes(scope, { follow: false })) all.push(c);
  assert.deepEqual(
    all.map((c) => c.kind),
    ["written", "forgotten"],
  );
});
