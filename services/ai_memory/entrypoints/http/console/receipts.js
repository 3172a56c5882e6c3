// Erasure receipts verified in the page, the same check as the Python verifier
// (ai_memory.sdk.receipts) and the TypeScript SDK (services/sdk-ts/src/receipts.ts):
// exactly the members `receipt` and `signature`, algorithm Ed25519, the key id of the
// published key, and the Ed25519 signature of the receipt's canonical JSON. WebCrypto
// verifies (Ed25519: Chromium 137 and later, Firefox 129, Safari 17): nothing is sent
// anywhere to verify, and the key is the one the server publishes.

import { canonicalJson, parseSigned } from "./signed-json.js";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class ReceiptInvalid extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "ReceiptInvalid";
  }
}

/** @param {string} text @returns {Uint8Array<ArrayBuffer>} */
function strictBase64(text) {
  // atob skips nothing but accepts missing padding; Python's b64decode(validate=True) does not.
  if (!BASE64.test(text)) throw new ReceiptInvalid("not base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/**
 * The raw 32 bytes of an Ed25519 public key in PEM (SubjectPublicKeyInfo).
 * @param {string} pem
 */
function spkiOf(pem) {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  return strictBase64(body);
}

/** @param {ArrayBuffer} bytes */
function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The key and its id (first 16 hex digits of the SHA-256 of its raw 32 bytes).
 * @param {string} pem
 * @returns {Promise<{key: CryptoKey, keyId: string}>}
 */
export async function loadPublicKey(pem) {
  let key;
  try {
    key = await crypto.subtle.importKey("spki", spkiOf(pem), { name: "Ed25519" }, true, ["verify"]);
  } catch (error) {
    throw new ReceiptInvalid(`not an Ed25519 public key: ${error instanceof Error ? error.message : error}`);
  }
  const raw = await crypto.subtle.exportKey("raw", key);
  const keyId = hex(await crypto.subtle.digest("SHA-256", raw)).slice(0, 16);
  return { key, keyId };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Verify a receipt's text as served (or pasted); resolves to its body, rejects with
 * ReceiptInvalid saying why not.
 * @param {string} text
 * @param {string} pem the published public key (GET /v1/erasures/public-key)
 * @returns {Promise<Record<string, any>>}
 */
export async function verifyReceipt(text, pem) {
  const { key, keyId } = await loadPublicKey(pem);
  let document;
  try {
    document = parseSigned(text);
  } catch (error) {
    throw new ReceiptInvalid(`not a JSON receipt: ${error instanceof Error ? error.message : error}`);
  }
  const members = isObject(document) ? Object.keys(document).sort() : [];
  if (!isObject(document) || members.join(",") !== "receipt,signature") {
    throw new ReceiptInvalid("a receipt has exactly the fields receipt and signature");
  }
  const signed = /** @type {Record<string, any>} */ (document);
  const body = signed.receipt;
  const signature = signed.signature;
  if (!isObject(body) || !isObject(signature)) throw new ReceiptInvalid("receipt and signature must be objects");
  if (signature.algorithm !== "Ed25519") throw new ReceiptInvalid("signature.algorithm must be Ed25519");
  if (signature.key_id !== keyId) throw new ReceiptInvalid("signed by another key (signature.key_id)");
  const value = strictBase64(String(signature.value));
  const message = new TextEncoder().encode(canonicalJson(body));
  const valid = await crypto.subtle.verify({ name: "Ed25519" }, key, value, message);
  if (!valid) throw new ReceiptInvalid("the signature does not match the receipt");
  return JSON.parse(JSON.stringify(body));
}
