// Retries against a tiny local server that answers what each test scripts.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { after, before, beforeEach, describe, test } from "node:test";
import {
  ConnectionFailedError,
  MemoryClient,
  RateLimitedError,
  RetryPolicy,
  UnavailableError,
  WaitTimeoutError,
  parseRetryAfter,
} from "../src/index.ts";

type Answer = { status: number; headers?: Record<string, string>; body?: unknown; drop?: boolean };
const PROBLEM = "application/problem+json";

describe("retries honour Retry-After, only when a repeat is safe", () => {
  let script: Answer[] = [];
  let seen: string[] = [];
  let base = "";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    const answer = script.shift() ?? { status: 500 };
    if (answer.drop) {
      // The request arrived and the connection dies before any answer: the worst moment
      // for a write, which may or may not have happened.
      request.socket.destroy();
      return;
    }
    const json = answer.status >= 400 ? PROBLEM : "application/json";
    response.writeHead(answer.status, { "content-type": json, ...answer.headers });
    response.end(JSON.stringify(answer.body ?? {}));
  });
  const delays: number[] = [];
  const policy = (maxRetries = 3): RetryPolicy =>
    new RetryPolicy({ maxRetries, random: () => 0, sleep: async (s) => void delays.push(s) });

  before(async () => {
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const address = server.address();
    assert.ok(address && typeof address === "object");
    base = `http://127.0.0.1:${address.port}`;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => {
    script = [];
    seen = [];
    delays.length = 0;
  });

  const busy = (status: number, retryAfter: string): Answer => ({
    status,
    headers: { "retry-after": retryAfter },
    body: { status, code: status === 429 ? "rate_limited" : "unavailable", detail: "busy" },
  });
  const record = { id: "m1", content: "x", scope: "public", source_agent: "a", type: "fact" };

  test("429 with Retry-After, then 200: the wait is the server's", async () => {
    script = [busy(429, "2"), { status: 200, body: record }];
    const client = new MemoryClient({ baseUrl: base, retries: policy() });
    const got = await client.get("m1");
    assert.equal(got.id, "m1");
    assert.equal(seen.length, 2);
    assert.deepEqual(delays, [2]);
  });

  test("a real wait: Retry-After 1 takes about a second", async () => {
    script = [busy(503, "1"), { status: 200, body: record }];
    const client = new MemoryClient({ baseUrl: base });
    const started = Date.now();
    await client.get("m1");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 950 && elapsed < 3000, `waited ${elapsed} ms`);
  });

  test("retries are bounded: the last 429 is RateLimitedError with its hint", async () => {
    script = [busy(429, "1"), busy(429, "1"), busy(429, "1")];
    const client = new MemoryClient({ baseUrl: base, retries: policy(2) });
    await assert.rejects(client.get("m1"), (e: unknown) => e instanceof RateLimitedError && e.retryAfter === 1);
    assert.equal(seen.length, 3);
    assert.deepEqual(delays, [1, 1]);
  });

  test("Retry-After is capped", async () => {
    script = [busy(503, "3600"), { status: 200, body: record }];
    const client = new MemoryClient({ baseUrl: base, retries: policy() });
    await client.get("m1");
    assert.deepEqual(delays, [30]);
  });

  test("a create without an id is not repeated: it may have been written", async () => {
    script = [busy(503, "1"), { status: 201, body: {} }];
    const client = new MemoryClient({ baseUrl: base, retries: policy() });
    await assert.rejects(
      client.create({ content: "x", scope: "public", source_agent: "a", type: "fact" }),
      (e: unknown) => e instanceof UnavailableError && e.status === 503,
    );
    assert.equal(seen.length, 1);
  });

  test("a conditional write is not repeated; an unconditional one is", async () => {
    const written = { created: false, changed: true, position: 1, record };
    script = [busy(429, "0"), { status: 200, body: written }];
    const client = new MemoryClient({ baseUrl: base, retries: policy() });
    await assert.rejects(client.write("x", { id: "m1", scope: "public", sourceAgent: "a", ifMatch: 1 }), RateLimitedError);
    assert.equal(seen.length, 1);
    script = [busy(429, "0"), { status: 200, body: written }];
    await client.write("x", { id: "m1", scope: "public", sourceAgent: "a" });
    assert.deepEqual(seen, ["PUT /v1/memories/m1", "PUT /v1/memories/m1", "PUT /v1/memories/m1"]);
  });

  test("503 projection_lag is WaitTimeoutError, with the request id of the answer", async () => {
    script = [
      {
        status: 503,
        headers: { "x-request-id": "req-42" },
        body: { status: 503, code: "projection_lag", detail: "written; the wait gave up" },
      },
    ];
    const client = new MemoryClient({ baseUrl: base, retries: 0 });
    await assert.rejects(client.get("m1"), (e: unknown) => {
      assert.ok(e instanceof WaitTimeoutError && e instanceof UnavailableError);
      assert.equal(e.code, "projection_lag");
      assert.equal(e.requestId, "req-42");
      assert.equal(e.detail, "written; the wait gave up");
      return true;
    });
  });

  test("a connection dropped after the request: a PUT is sent again, a create is not", async () => {
    const written = { created: true, changed: true, position: 1, record };
    script = [{ status: 0, drop: true }, { status: 201, body: written }];
    const client = new MemoryClient({ baseUrl: base, retries: policy() });
    const out = await client.write("x", { id: "m1", scope: "public", sourceAgent: "a" });
    assert.equal(out.record.id, "m1");
    assert.deepEqual(seen, ["PUT /v1/memories/m1", "PUT /v1/memories/m1"]);

    seen = [];
    script = [{ status: 0, drop: true }, { status: 201, body: written }];
    await assert.rejects(
      client.create({ content: "x", scope: "public", source_agent: "a", type: "fact" }),
      (e: unknown) => e instanceof ConnectionFailedError,
    );
    assert.deepEqual(seen, ["POST /v1/memories"]);
  });

  test("no server at all: retried, then ConnectionFailedError", async () => {
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
    const address = probe.address();
    assert.ok(address && typeof address === "object");
    await new Promise<void>((done) => probe.close(() => done()));
    const client = new MemoryClient({ baseUrl: `http://127.0.0.1:${address.port}`, retries: policy(2) });
    await assert.rejects(client.get("m1"), (e: unknown) => e instanceof ConnectionFailedError && e.status === undefined);
    assert.equal(delays.length, 2);
  });

  test("a stalled answer times out", async () => {
    const stall = createServer(() => undefined);
    await new Promise<void>((done) => stall.listen(0, "127.0.0.1", done));
    const address = stall.address();
    assert.ok(address && typeof address === "object");
    try {
      const client = new MemoryClient({ baseUrl: `http://127.0.0.1:${address.port}`, timeoutMs: 200, retries: 0 });
      await assert.rejects(client.get("m1"), (e: unknown) => e instanceof ConnectionFailedError && /200 ms/.test(e.message));
    } finally {
      stall.closeAllConnections();
      await new Promise<void>((done) => stall.close(() => done()));
    }
  });

  test("a long-poll longer than the client's timeout is refused before any request", async () => {
    const client = new MemoryClient({ baseUrl: base, timeoutMs: 5000 });
    await assert.rejects(client.changes("public", { pollTimeout: 5 }).next(), /pollTimeout \(5 s\) must be below/);
    assert.deepEqual(seen, []);
  });

  test("Retry-After as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5);
    assert.equal(parseRetryAfter("7", now), 7);
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });
});
