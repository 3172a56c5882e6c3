import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { python, REPO_DIR } from "../scripts/paths.ts";
import {
  ForbiddenError,
  MemoryClient,
  NotFoundError,
  verifyWebhook,
  webhookSignature,
  webhookSignatureHeader,
  WebhookVerificationError,
  type WebhookCreated,
  type WebhookVerificationReason,
} from "../src/index.ts";
import { admin, freshScope, readerKey, url } from "./server.ts";

const HEADER = "X-AIMemory-Signature";

function refused(reason: WebhookVerificationReason, verify: () => unknown): void {
  assert.throws(verify, (e: unknown) => e instanceof WebhookVerificationError && e.reason === reason && e.code === reason);
}

describe("the documented test vector", () => {
  // Read from docs/API.md itself, so the page and the verifier cannot disagree.
  const page = readFileSync(join(REPO_DIR, "docs", "API.md"), "utf8");
  const vector = /secret `(whsec_[^`]+)`, `t=(\d+)`, body `([^`]+)` →\s*`v1=([0-9a-f]{64})`/.exec(page);

  test("verifies in TypeScript as it does in Python", () => {
    assert.ok(vector, "docs/API.md lost its webhook test vector");
    const [, secret, t, body, v1] = vector as unknown as [string, string, string, string, string];
    assert.equal(webhookSignature(secret, Number(t), body), v1);
    const delivery = verifyWebhook(secret, { [HEADER]: `t=${t},v1=${v1}` }, body, { now: Number(t) });
    assert.deepEqual(delivery, JSON.parse(body));
    refused("signature_mismatch", () =>
      verifyWebhook("whsec_other", { [HEADER]: `t=${t},v1=${v1}` }, body, { now: Number(t) }),
    );
  });
});

describe("verifyWebhook refuses what Python's verify_webhook refuses, for the same reason", () => {
  const secret = "whsec_cross-check";
  const now = 1_800_000_000;
  const body = '{"type":"memory.changes","events":[],"note":"é ✓"}';
  const good = webhookSignatureHeader(secret, now, body);
  const cases: [string, string | null, string][] = [
    ["good", good, body],
    ["good, upper-case hex", good.toUpperCase().replace("T=", "t=").replace("V1=", "v1="), body],
    ["a second v1 that matches", `t=${now},v1=${"0".repeat(64)},${good.split(",")[1]}`, body],
    ["no header", null, body],
    ["empty header", "", body],
    ["no equals sign", `t${now}`, body],
    ["no v1", `t=${now}`, body],
    ["no t", good.split(",")[1] ?? "", body],
    ["two t", `t=${now},${good}`, body],
    ["t not a number", `t=12a,${good.split(",")[1]}`, body],
    ["t non-ASCII digits", `t=١٢٣,${good.split(",")[1]}`, body],
    ["t superscript digits", `t=²,${good.split(",")[1]}`, body],
    ["t too long", `t=1${"0".repeat(12)},${good.split(",")[1]}`, body],
    ["t negative", `t=-1,${good.split(",")[1]}`, body],
    ["old", webhookSignatureHeader(secret, now - 301, body), body],
    ["from the future", webhookSignatureHeader(secret, now + 301, body), body],
    ["old timestamp on a fresh signature", `t=${now - 301},${good.split(",")[1]}`, body],
    ["replayed with a new timestamp", `t=${now + 1},${good.split(",")[1]}`, body],
    ["tampered body", good, body.replace("memory.changes", "memory.change")],
    ["wrong secret", webhookSignatureHeader("whsec_wrong", now, body), body],
    ["short v1", `t=${now},v1=abc`, body],
    ["non-ASCII v1", `t=${now},v1=${"é".repeat(32)}`, body],
    ["an unknown scheme only", `t=${now},v0=${good.split("v1=")[1]}`, body],
    ["signed, not JSON", webhookSignatureHeader(secret, now, "nope"), "nope"],
    ["signed, a JSON array", webhookSignatureHeader(secret, now, "[1]"), "[1]"],
  ];

  function tsReason(header: string | null, text: string): string {
    try {
      verifyWebhook(secret, header === null ? {} : { [HEADER]: header }, text, { now });
      return "ok";
    } catch (e) {
      if (e instanceof WebhookVerificationError) return e.reason;
      throw e;
    }
  }

  test("every case", () => {
    const script = [
      "import json, sys",
      "from ai_memory.sdk.webhooks import WebhookVerificationError, verify_webhook",
      "out = []",
      "for header, body in json.load(sys.stdin)['cases']:",
      "    try:",
      `        verify_webhook(${JSON.stringify(secret)}, {} if header is None else {'${HEADER}': header}, body, now=${now})`,
      "        out.append('ok')",
      "    except WebhookVerificationError as e:",
      "        out.append(e.reason)",
      "print(json.dumps(out))",
    ].join("\n");
    const input = JSON.stringify({ cases: cases.map(([, header, text]) => [header, text]) });
    const fromPython = JSON.parse(
      execFileSync(python(), ["-c", script], { input, encoding: "utf8", env: { ...process.env, PYTHONIOENCODING: "utf-8" } }),
    ) as string[];
    const fromTs = cases.map(([, header, text]) => tsReason(header, text));
    assert.deepEqual(
      cases.map(([name], i) => [name, fromTs[i]]),
      cases.map(([name], i) => [name, fromPython[i]]),
    );
    // And the cases mean what their names say.
    const expected: Record<string, string> = {
      good: "ok",
      "no header": "missing_signature",
      "two t": "malformed_signature",
      "t superscript digits": "malformed_signature",
      old: "timestamp_out_of_tolerance",
      "from the future": "timestamp_out_of_tolerance",
      "replayed with a new timestamp": "signature_mismatch",
      "tampered body": "signature_mismatch",
      "wrong secret": "signature_mismatch",
      "non-ASCII v1": "signature_mismatch",
      "signed, a JSON array": "malformed_body",
    };
    for (const [name, reason] of Object.entries(expected)) {
      assert.equal(fromTs[cases.findIndex(([n]) => n === name)], reason, name);
    }
  });

  test("bytes, Headers and any header case verify too; the tolerance is an option", () => {
    const bytes = new TextEncoder().encode(body);
    assert.equal(verifyWebhook(secret, new Headers({ [HEADER]: good }), bytes, { now }).type, "memory.changes");
    assert.equal(verifyWebhook(secret, { "x-aimemory-signature": good }, Buffer.from(bytes), { now }).type, "memory.changes");
    refused("timestamp_out_of_tolerance", () => verifyWebhook(secret, { [HEADER]: good }, body, { now: now + 61, toleranceS: 60 }));
    verifyWebhook(secret, { [HEADER]: good }, body, { now: now + 299 });
    refused("timestamp_out_of_tolerance", () => verifyWebhook(secret, { [HEADER]: good }, body, { now: now + 301 }));
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe("webhooks on a real server", () => {
  const memory = admin();
  const deliveries: Received[] = [];
  let waiting: (() => void) | undefined;
  let receiver: Server;
  let hook: WebhookCreated;
  let scope: string;

  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(204).end();
        waiting?.();
      });
    });
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
    const { port } = receiver.address() as AddressInfo;
    scope = freshScope("team");
    hook = await memory.createWebhook(`http://127.0.0.1:${port}/hook`, {
      scopes: [scope],
      kinds: ["written", "forgotten"],
      description: "sdk-ts test",
    });
  });

  after(async () => {
    await memory.deleteWebhook(hook.id).catch(() => undefined);
    receiver.closeAllConnections();
    await new Promise<void>((done) => receiver.close(() => done()));
  });

  async function nextDelivery(): Promise<Received> {
    const deadline = Date.now() + 30_000;
    while (deliveries.length === 0) {
      if (Date.now() > deadline) throw new Error("no delivery within 30 s");
      await new Promise<void>((done) => {
        waiting = done;
        setTimeout(done, 500);
      });
    }
    return deliveries.shift() as Received;
  }

  test("the subscription is typed and its secret shown once", async () => {
    assert.match(hook.id, /^wh_[0-9a-f]{16}$/);
    assert.match(hook.secret, /^whsec_/);
    assert.equal(hook.status, "active");
    assert.deepEqual(hook.scopes, [scope]);
    const shown = await memory.getWebhook(hook.id);
    assert.equal(shown.id, hook.id);
    assert.equal("secret" in shown, false);
    const listed = await memory.listWebhooks();
    assert.ok(listed.webhooks.some((h) => h.id === hook.id));
    assert.equal(JSON.stringify(listed).includes(hook.secret), false);
  });

  test("a write arrives as a signed delivery, without its content; tampering is refused", async () => {
    const written = await memory.write("Dana's pager code is 4711.", { scope, sourceAgent: "a", id: `wh-${scope.slice(8)}` });
    const { headers, body } = await nextDelivery();
    assert.equal(headers["x-aimemory-webhook-id"], hook.id);
    assert.equal(body.includes("4711"), false, "a delivery never carries content");

    const delivery = verifyWebhook(hook.secret, headers, body);
    assert.equal(delivery.type, "memory.changes");
    assert.equal(delivery.webhook_id, hook.id);
    assert.equal(headers["x-aimemory-event-id"], delivery.delivery_id);
    const [event] = delivery.events;
    assert.ok(event);
    assert.equal(event.id, written.record.id);
    assert.equal(event.kind, "written");
    assert.equal(event.scope, scope);
    assert.match(event.event_id, /^evt_/);

    refused("signature_mismatch", () => verifyWebhook(hook.secret, headers, body.toString("utf8").replace(scope, "team:other")));
    const flipped = Buffer.from(body);
    const last = flipped.length - 2;
    flipped.writeUInt8(flipped.readUInt8(last) ^ 1, last);
    refused("signature_mismatch", () => verifyWebhook(hook.secret, headers, flipped));
    refused("signature_mismatch", () => verifyWebhook(`${hook.secret}x`, headers, body));
    refused("signature_mismatch", () => verifyWebhook("whsec_not-the-secret", headers, body));
    const signedAt = Number(/t=(\d+)/.exec(String(headers["x-aimemory-signature"]))?.[1]);
    refused("timestamp_out_of_tolerance", () => verifyWebhook(hook.secret, headers, body, { now: signedAt + 301 }));
    refused("missing_signature", () => verifyWebhook(hook.secret, { ...headers, "x-aimemory-signature": undefined }, body));
  });

  test("resume answers the webhook; a deleted one is gone", async () => {
    const resumed = await memory.resumeWebhook(hook.id);
    assert.equal(resumed.status, "active");
    const other = await memory.createWebhook("http://127.0.0.1:9/never", { scopes: [freshScope()] });
    await memory.deleteWebhook(other.id);
    await assert.rejects(memory.getWebhook(other.id), NotFoundError);
    await assert.rejects(memory.deleteWebhook(other.id), NotFoundError);
  });

  test("a reader key gets a typed 403", async () => {
    const reader = new MemoryClient({ baseUrl: url(), apiKey: readerKey() });
    await assert.rejects(
      reader.createWebhook("http://127.0.0.1:9/hook", { scopes: ["*"] }),
      (e: unknown) => e instanceof ForbiddenError && e.status === 403 && e.code === "role_forbidden",
    );
    await assert.rejects(reader.listWebhooks(), ForbiddenError);
    await assert.rejects(reader.getWebhook(hook.id), ForbiddenError);
  });
});
