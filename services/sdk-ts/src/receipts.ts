// Offline verification of erasure receipts, the same check as the Python verifier
// (ai_memory.sdk.receipts): exactly the members `receipt` and `signature`, algorithm
// Ed25519, the key id of the key given, and the Ed25519 signature of the receipt's
// canonical JSON. A pretty-printed copy still verifies; any changed, added or removed
// member fails, and so does a text a lenient parser would read two ways (signed-json.ts).
// Node's own crypto verifies: no dependency.
import { createHash, createPublicKey, KeyObject, verify } from "node:crypto";
import { ReceiptInvalidError } from "./errors.js";
import { canonicalJson, parseSigned, type SignedValue } from "./signed-json.js";
import type { ErasureReceipt, ErasureReceiptBody, ReceiptSignature } from "./types.js";

export const ALGORITHM = "Ed25519";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A PEM public key, or the base64 of its raw 32 bytes. */
export function loadPublicKey(key: string | Uint8Array | KeyObject): KeyObject {
  if (key instanceof KeyObject) return checkEd25519(key);
  const text = typeof key === "string" ? key : Buffer.from(key).toString("ascii");
  try {
    if (text.includes("-----BEGIN")) return checkEd25519(createPublicKey(text));
    const raw = strictBase64(text.trim());
    if (raw.length !== 32) throw new Error(`${raw.length} bytes, not 32`);
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  } catch (error) {
    if (error instanceof ReceiptInvalidError) throw error;
    throw new ReceiptInvalidError(`not an Ed25519 public key: ${(error as Error).message}`, { cause: error });
  }
}

function checkEd25519(key: KeyObject): KeyObject {
  if (key.type !== "public" || key.asymmetricKeyType !== "ed25519") {
    throw new ReceiptInvalidError("not an Ed25519 public key");
  }
  return key;
}

function strictBase64(text: string): Buffer {
  // Buffer.from(…, "base64") skips what it cannot read; Python's b64decode(validate=True)
  // refuses it, and so must this.
  if (!BASE64.test(text)) throw new ReceiptInvalidError("not base64");
  return Buffer.from(text, "base64");
}

/** The id a receipt's `signature.key_id` names its key by: the first 16 hex digits of
 * SHA-256 of the raw 32-byte public key. */
export function keyId(key: KeyObject): string {
  const x = key.export({ format: "jwk" }).x;
  if (typeof x !== "string") throw new ReceiptInvalidError("not an Ed25519 public key");
  return createHash("sha256").update(Buffer.from(x, "base64url")).digest("hex").slice(0, 16);
}

type Document = { [key: string]: SignedValue };

function isObject(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The signed document of what `verifyReceipt` accepts, read strictly. */
function documentOf(receipt: ErasureReceipt | string | Uint8Array | object): unknown {
  let text: string | undefined;
  if (typeof receipt === "string") text = receipt;
  else if (receipt instanceof Uint8Array) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(receipt);
    } catch (error) {
      throw new ReceiptInvalidError("not a JSON receipt: not UTF-8", { cause: error });
    }
  } else if (isObject(receipt) && typeof receipt.raw === "string") text = receipt.raw; // as served
  if (text === undefined) return JSON.parse(JSON.stringify(receipt)) as unknown; // plain JSON values
  try {
    return parseSigned(text);
  } catch (error) {
    throw new ReceiptInvalidError(`not a JSON receipt: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Check an erasure receipt offline and return what it says.
 *
 * `receipt` is what `erasureReceipt` returned (its `raw` text is checked), the signed
 * document's JSON text or bytes, or the document as a plain object; `publicKey` the
 * server's key as PEM (`erasurePublicKey().pem`), the base64 of its raw bytes, or a
 * KeyObject. Throws `ReceiptInvalidError` when the receipt was changed, signed by another
 * key, or is not a receipt. A valid signature says the server issued it; whether the
 * erasure's own scan found nothing readable is `receipt.verification.passed`.
 */
export function verifyReceipt(
  receipt: ErasureReceipt | string | Uint8Array | object,
  publicKey: string | Uint8Array | KeyObject,
): ErasureReceiptBody {
  const key = loadPublicKey(publicKey);
  const document = documentOf(receipt);
  const members = isObject(document) ? Object.keys(document).sort() : [];
  if (!isObject(document) || members.join(",") !== "receipt,signature") {
    throw new ReceiptInvalidError("a receipt has exactly the fields receipt and signature");
  }
  const body = document.receipt;
  const signature = document.signature;
  if (!isObject(body) || !isObject(signature)) {
    throw new ReceiptInvalidError("receipt and signature must be objects");
  }
  if (signature.algorithm !== ALGORITHM) throw new ReceiptInvalidError(`signature.algorithm must be ${ALGORITHM}`);
  if (signature.key_id !== keyId(key)) throw new ReceiptInvalidError("signed by another key (signature.key_id)");
  let valid = false;
  try {
    const value = strictBase64(String(signature.value));
    valid = verify(null, Buffer.from(canonicalJson(body), "utf8"), key, value);
  } catch (error) {
    throw new ReceiptInvalidError("the signature does not match the receipt", { cause: error });
  }
  if (!valid) throw new ReceiptInvalidError("the signature does not match the receipt");
  // Plain JS values from here on (numbers as numbers) for the caller.
  return JSON.parse(JSON.stringify(body)) as ErasureReceiptBody;
}

/** A receipt answer's text, read strictly and typed, keeping the text as served. */
export function readReceipt(text: string): ErasureReceipt {
  const document = documentOf(text);
  if (!isObject(document) || !isObject(document.receipt) || !isObject(document.signature)) {
    throw new ReceiptInvalidError("not an erasure receipt");
  }
  const plain = JSON.parse(JSON.stringify(document)) as { receipt: ErasureReceiptBody; signature: ReceiptSignature };
  return { receipt: plain.receipt, signature: plain.signature, raw: text };
}
