import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ForbiddenError,
  GoneError,
  InvalidInputError,
  MemoryClient,
  NotFoundError,
  PreconditionFailedError,
  UnauthenticatedError,
} from "../src/index.ts";
import { admin, freshScope, readerKey, url } from "./server.ts";

describe("memories against a real server", () => {
  const memory = admin();

  test("write waits, reads back, and an unchanged upsert is not a new version", async () => {
    const scope = freshScope();
    const written = await memory.write("Alice prefers short bullet lists.", {
      scope,
      sourceAgent: "planner",
      type: "preference",
      tags: ["style"],
      meta: { since: 2019 },
      wait: true,
    });
    assert.equal(written.created, true);
    const read = await memory.get(written.record.id);
    assert.equal(read.content, "Alice prefers short bullet lists.");
    assert.equal(read.type, "preference");
    assert.deepEqual(read.meta, { since: 2019 });
    const again = await memory.write("Alice prefers short bullet lists.", {
      id: written.record.id,
      scope,
      sourceAgent: "planner",
      type: "preference",
      tags: ["style"],
      meta: { since: 2019 },
    });
    assert.equal(again.changed, false);
    assert.equal(again.record.version, written.record.version);
  });

  test("a stale If-Match is PreconditionFailedError and writes nothing", async () => {
    const scope = freshScope();
    const first = await memory.write("v1", { scope, sourceAgent: "a", wait: true });
    const id = first.record.id;
    await memory.write("v2", { id, scope, sourceAgent: "a", ifMatch: first.record.version, wait: true });
    await assert.rejects(
      memory.write("v3", { id, scope, sourceAgent: "a", ifMatch: first.record.version }),
      (e: unknown) => e instanceof PreconditionFailedError && e.status === 412 && e.code === "precondition_failed",
    );
    assert.equal((await memory.get(id)).content, "v2");
  });

  test("a batch answers item by item: a bad item is refused alone, naming its field", async () => {
    const scope = freshScope();
    const out = await memory.writeMany(
      [
        { content: "one", scope, source_agent: "a", type: "fact" },
        { content: "two", scope, source_agent: "a", type: "not-a-type" },
        { id: "batch-three", content: "three", scope, source_agent: "a", type: "fact" },
      ],
      { wait: true },
    );
    assert.equal(out.written, 2);
    assert.equal(out.rejected, 1);
    const bad = out.results[1];
    assert.ok(bad?.problem, "the refused item carries its problem");
    assert.match(String(bad.problem.field), /type/);
    assert.equal((await memory.get("batch-three")).content, "three");
  });

  test("search finds a memory with the Python SDK's options", async () => {
    const scope = freshScope();
    await memory.write("The billing job runs nightly on Airflow.", { scope, sourceAgent: "a", type: "task", wait: true });
    await memory.write("Bob likes green tea.", { scope, sourceAgent: "a", wait: true });
    const found = await memory.search("nightly billing airflow", { scope, topK: 1, mode: "keyword", types: ["task"] });
    assert.equal(found.results.length, 1);
    assert.equal(found.results[0]?.record.content, "The billing job runs nightly on Airflow.");
    const none = await memory.search("nightly billing airflow", { scope, types: ["preference"] });
    assert.equal(none.results.length, 0);
  });

  test("listing follows the cursor over several pages, each memory once", async () => {
    const scope = freshScope();
    const ids = new Set<string>();
    const out = await memory.writeMany(
      Array.from({ length: 7 }, (_, i) => ({ content: `memory ${i}`, scope, source_agent: "a", type: "fact" })),
      { wait: true },
    );
    for (const result of out.results) ids.add(String(result.id));
    const first = await memory.listMemories({ scope, limit: 3 });
    assert.equal(first.items.length, 3);
    assert.ok(first.next_cursor, "a first page of 3 out of 7 has a next cursor");
    const seen: string[] = [];
    for await (const record of memory.iterMemories({ scope, pageSize: 3 })) seen.push(record.id);
    assert.equal(seen.length, 7);
    assert.deepEqual(new Set(seen), ids);
    // Several scopes at once (the query repeats `scope`).
    const other = freshScope();
    await memory.write("elsewhere", { scope: other, sourceAgent: "a", wait: true });
    let both = 0;
    for await (const _ of memory.iterMemories({ scope: [scope, other], pageSize: 5 })) both++;
    assert.equal(both, 8);
  });

  test("forget: the memory is gone (410), an unknown id is 404, both typed", async () => {
    const scope = freshScope();
    const { record } = await memory.write("to forget", { scope, sourceAgent: "a", wait: true });
    const forgotten = await memory.forget(record.id, { reason: "asked", wait: true });
    assert.equal(forgotten.forgotten, true);
    assert.equal((await memory.delete(record.id)).already_forgotten, true);
    await assert.rejects(memory.get(record.id), (e: unknown) => {
      assert.ok(e instanceof GoneError);
      assert.equal(e.status, 410);
      assert.equal(e.code, "memory_forgotten");
      assert.ok(e.requestId, "the problem names its request");
      return true;
    });
    await assert.rejects(
      memory.get(`missing-${record.id}`),
      (e: unknown) => e instanceof NotFoundError && e.status === 404 && e.code === "memory_not_found",
    );
  });

  test("bad input is InvalidInputError naming the field", async () => {
    await assert.rejects(memory.write("x", { scope: "no scope here", sourceAgent: "a" }), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError);
      assert.equal(e.status, 422);
      assert.equal(e.field, "scope");
      return true;
    });
    await assert.rejects(
      memory.listMemories({ limit: 5000 }),
      (e: unknown) => e instanceof InvalidInputError && e.field === "limit",
    );
  });

  test("a wrong key is UnauthenticatedError; a reader's write is ForbiddenError", async () => {
    const stranger = new MemoryClient({ baseUrl: url(), apiKey: "aimem_not-a-key" });
    await assert.rejects(
      stranger.get("anything"),
      (e: unknown) => e instanceof UnauthenticatedError && e.status === 401 && e.code.length > 0,
    );
    const anonymous = new MemoryClient({ baseUrl: url() });
    await assert.rejects(anonymous.get("anything"), UnauthenticatedError);
    const reader = new MemoryClient({ baseUrl: url(), apiKey: readerKey() });
    await assert.rejects(
      reader.write("x", { scope: freshScope(), sourceAgent: "a" }),
      (e: unknown) => e instanceof ForbiddenError && e.status === 403 && e.code === "role_forbidden",
    );
  });

  test("export streams the bundle; importing it elsewhere restores the memories", async () => {
    const scope = freshScope();
    await memory.writeMany(
      [
        { id: "exp-1", content: "first", scope, source_agent: "a", type: "fact" },
        { id: "exp-2", content: "second", scope, source_agent: "a", type: "fact" },
      ],
      { wait: true },
    );
    const lines: string[] = [];
    for await (const line of memory.exportLines(scope)) lines.push(line);
    type Line = { kind?: string; record?: { id: string; content: string; scope: string } };
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    assert.equal(parsed[0]?.kind, "header");
    assert.equal(parsed.at(-1)?.kind, "trailer");
    const records = parsed.flatMap((l) => (l.kind === "record" && l.record ? [l.record] : []));
    assert.deepEqual(records.map((r) => r.id).sort(), ["exp-1", "exp-2"]);
    // The bundle as one text, back where it came from: nothing changes.
    const again = await memory.importBundle(`${lines.join("\n")}\n`, { wait: true });
    assert.equal(again.unchanged, 2);
    assert.equal(again.written, 0);

    // The same records into another scope: bare record lines, then bundle lines streamed.
    const target = freshScope();
    const moved = records.map((r) => ({ ...r, id: `${r.id}-copy`, scope: target }));
    const report = await memory.importBundle(moved, { wait: true });
    assert.equal(report.written, 2);
    async function* stream(): AsyncGenerator<string> {
      for (const r of moved) yield JSON.stringify({ kind: "record", record: { ...r, id: `${r.id}-stream` } });
    }
    assert.equal((await memory.importBundle(stream(), { wait: true })).written, 2);
    const copies: string[] = [];
    for await (const r of memory.iterMemories({ scope: target })) copies.push(r.id);
    assert.equal(copies.length, 4);
  });
});
