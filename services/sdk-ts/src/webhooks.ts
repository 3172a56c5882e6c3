// Verifying a webhook delivery on the receiving side: the TypeScript twin of Python's
// ai_memory.sdk.webhooks.verify_webhook (core/webhooks/signing.py), step for step, with
// the same failure reasons and the same default tolerance.
//
//   X-AIMemory-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>
//
// The HMAC key is the secret string as UTF-8 (the `whsec_` prefix included), the message
// the decimal timestamp, a dot and the body bytes exactly as received. Several v1 values
// may appear (room for a secret rotation): one match is enough.
import { createHmac, timingSafeEqual } from "node:crypto";
import { AiMemoryError } from "./errors.js";
import type { ChangeOut } from "./types.js";

export const SIGNATURE_HEADER = "X-AIMemory-Signature";
/** Seconds a signature's timestamp may be from this machine's clock, either way. */
export const DEFAULT_TOLERANCE_S = 300;
const SCHEME = "v1";

/** Why a delivery was refused (the same words as the Python verifier). */
export type WebhookVerificationReason =
  | "missing_signature"
  | "malformed_signature"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch"
  | "malformed_body";

/** A delivery that must not be trusted; `reason` says why (also its `code`). */
export class WebhookVerificationError extends AiMemoryError {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message, reason);
    this.reason = reason;
  }
}

/** One event of a delivery: a change-feed entry and its stable id (de-duplicate by it). */
export interface WebhookEvent extends ChangeOut {
  event_id: string;
}

/** The body of a delivery: a batch of consecutive changes — ids, never content. */
export interface WebhookDelivery {
  type: "memory.changes";
  delivery_id: string;
  webhook_id: string;
  events: WebhookEvent[];
  /** `GET /v1/changes?since=<cursor>` reads on from after this batch. */
  cursor: string;
  [member: string]: unknown;
}

/** The request's headers as any Node or fetch server hands them over. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

export interface VerifyWebhookOptions {
  /** Default 300. */
  toleranceS?: number;
  /** This machine's clock, in Unix seconds (tests); default now. */
  now?: number;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(wanted) ?? undefined;
  const entries: Iterable<[string, string | string[] | undefined]> =
    Symbol.iterator in headers
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(",") : value;
  }
  return undefined;
}

function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Hex HMAC-SHA256 of `"<timestamp>." + body` under `secret`. */
export function webhookSignature(secret: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(`${timestamp}.`, "ascii"))
    .update(bytesOf(body))
    .digest("hex");
}

/** The header a delivery carries (to sign a delivery in a receiver's own tests). */
export function webhookSignatureHeader(secret: string, timestamp: number, body: string | Uint8Array): string {
  return `t=${timestamp},${SCHEME}=${webhookSignature(secret, timestamp, body)}`;
}

function sameDigest(expected: Buffer, candidate: string): boolean {
  const given = Buffer.from(candidate.trim().toLowerCase(), "utf8");
  // timingSafeEqual needs equal lengths; a length differs only for a malformed value.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}

/** The signed timestamp if `body` was signed with `secret` within the tolerance of now;
 * WebhookVerificationError otherwise. Pass the body exactly as received. */
export function verifySignature(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): number {
  const raw = bytesOf(body);
  const header = headerOf(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookVerificationError("missing_signature", `no ${SIGNATURE_HEADER} header`);
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const text = part.trim();
    const at = text.indexOf("=");
    if (at < 0) throw new WebhookVerificationError("malformed_signature", "malformed signature header");
    const key = text.slice(0, at);
    const value = text.slice(at + 1);
    if (key === "t") {
      if (!/^[0-9]{1,12}$/.test(value) || timestamp !== undefined) {
        throw new WebhookVerificationError("malformed_signature", "malformed timestamp");
      }
      timestamp = Number(value);
    } else if (key === SCHEME) {
      candidates.push(value);
    }
  }
  if (timestamp === undefined || candidates.length === 0) {
    throw new WebhookVerificationError("malformed_signature", `the header needs t= and ${SCHEME}=`);
  }
  const tolerance = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  const current = options.now ?? Date.now() / 1000;
  const skew = Math.abs(current - timestamp);
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `signed at ${timestamp}, ${Math.round(skew)} s from now (tolerance ${tolerance} s): a replay or a wrong clock`,
    );
  }
  const expected = Buffer.from(webhookSignature(secret, timestamp, raw), "utf8");
  // Every candidate is compared (no early exit on the first match).
  let matched = false;
  for (const candidate of candidates) matched = sameDigest(expected, candidate) || matched;
  if (!matched) throw new WebhookVerificationError("signature_mismatch", "the signature does not match");
  return timestamp;
}

/** The delivery if `body` was signed with `secret` within `toleranceS` seconds (300) of
 * now; WebhookVerificationError (`reason`: missing_signature, malformed_signature,
 * timestamp_out_of_tolerance, signature_mismatch, malformed_body) otherwise. Pass the
 * body exactly as received (a string or the raw bytes), before any JSON parsing. */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookDelivery {
  verifySignature(secret, headers, body, options);
  let delivery: unknown;
  try {
    delivery = JSON.parse(typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError("malformed_body", "the body is not JSON");
  }
  if (typeof delivery !== "object" || delivery === null || Array.isArray(delivery)) {
    throw new WebhookVerificationError("malformed_body", "the body is not a JSON object");
  }
  return delivery as WebhookDelivery;
}
