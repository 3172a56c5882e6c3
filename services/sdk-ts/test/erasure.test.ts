import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { before, describe, test } from "node:test";
import { ForbiddenError, MemoryClient, ReceiptInvalidError, verifyReceipt, type ErasureReceipt } from "../src/index.ts";
import { admin, freshScope, readerKey, url } from "./server.ts";

describe("erasure receipts from a real server", () => {
  const memory = admin();
  let receipt: ErasureReceipt;
  let pem: string;
  let scope: string;

  before(async () => {
    scope = freshScope();
    await memory.write("Carol lives in Lisbon.", { scope, sourceAgent: "a", wait: true });
    await memory.write("Carol is allergic to nuts.", { scope, sourceAgent: "a", wait: true });
    const erased = await memory.erase({ scope, reason: "subject request", wait: true });
    assert.equal(erased.memories, 2);
    assert.equal(erased.already_done, false);
    const repeat = await memory.erase({ scope, reason: "subject request", erasureId: erased.erasure_id });
    assert.equal(repeat.already_done, true);
    receipt = await memory.erasureReceipt(erased.erasure_id);
    pem = (await memory.erasurePublicKey()).pem;
  });

  test("the server's receipt verifies and says what was erased", async () => {
    const body = verifyReceipt(receipt, pem);
    assert.equal(body.tenant, "default");
    assert.equal(body.erased.memory_ids.length, 2);
    assert.equal(body.verification.passed, true);
    assert.deepEqual(body.request.criteria, { scope });
    // The same document as text, as bytes, pretty-printed, or as a plain object.
    verifyReceipt(receipt.raw, pem);
    verifyReceipt(new TextEncoder().encode(receipt.raw), pem);
    verifyReceipt(JSON.stringify(JSON.parse(receipt.raw), null, 2), pem);
    verifyReceipt(JSON.parse(receipt.raw) as object, pem);
    const der = (await import("node:crypto")).createPublicKey(pem).export({ format: "der", type: "spki" });
    verifyReceipt(receipt.raw, der.subarray(-32).toString("base64")); // the raw key, base64
  });

  const refused = (text: string, why: RegExp): void => {
    assert.throws(
      () => verifyReceipt(text, pem),
      (e: unknown) => e instanceof ReceiptInvalidError && why.test(e.message),
    );
  };

  test("a changed field fails", () => {
    const changed = receipt.raw.replace(`"tenant":"default"`, `"tenant":"evil"`);
    assert.notEqual(changed, receipt.raw);
    refused(changed, /signature does not match/);
    const document = JSON.parse(receipt.raw) as { receipt: { erased: { memory_ids: string[] } } };
    document.receipt.erased.memory_ids.pop();
    refused(JSON.stringify(document), /signature does not match/);
  });

  test("a duplicated key fails, whichever value comes last", () => {
    refused(receipt.raw.replace(`"tenant":"default"`, `"tenant":"evil","tenant":"default"`), /duplicate key "tenant"/);
    refused(receipt.raw.replace(`"tenant":"default"`, `"tenant":"default","tenant":"evil"`), /duplicate key "tenant"/);
  });

  test("trailing data, an added member, a number written another way, another key: all fail", () => {
    refused(`${receipt.raw} {}`, /trailing data/);
    refused(`${receipt.raw.slice(0, -1)},"extra":1}`, /exactly the fields/);
    const number = /"erasure":(\d+)/.exec(receipt.raw);
    assert.ok(number);
    refused(receipt.raw.replace(number[0], `"erasure":${number[1]}e0`), /non-canonical number/);
    // 5.0 is read as the float it is, which is not what was signed (the integer 5).
    refused(receipt.raw.replace(number[0], `"erasure":${number[1]}.0`), /signature does not match/);
    refused(receipt.raw.replace(number[0], `"erasure":0${number[1]}`), /expected , or }/);
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString();
    assert.throws(() => verifyReceipt(receipt.raw, other), /signed by another key/);
    assert.throws(() => verifyReceipt(receipt.raw, "not a key"), ReceiptInvalidError);
  });

  test("a reader may not erase", async () => {
    const reader = new MemoryClient({ baseUrl: url(), apiKey: readerKey() });
    await assert.rejects(reader.erase({ scope: freshScope(), reason: "x" }), ForbiddenError);
  });
});
