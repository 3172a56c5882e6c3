export { DEFAULT_URL, FORGET_INTERACTION_REASON, MemoryClient } from "./client.js";
export type {
  AuditOptions,
  ChangesOptions,
  CreateWebhookOptions,
  EraseOptions,
  ImportSource,
  ListOptions,
  MemoryClientOptions,
  SearchOptions,
  Version,
  WriteOptions,
} from "./client.js";
export * from "./errors.js";
export { RetryPolicy, type RetryOptions } from "./retry.js";
export { ALGORITHM, keyId, loadPublicKey, verifyReceipt } from "./receipts.js";
export { canonicalJson, JsonNumber, parseSigned, SignedJsonError } from "./signed-json.js";
export {
  DEFAULT_TOLERANCE_S,
  SIGNATURE_HEADER,
  verifySignature,
  verifyWebhook,
  webhookSignature,
  webhookSignatureHeader,
  WebhookVerificationError,
} from "./webhooks.js";
export type {
  VerifyWebhookOptions,
  WebhookDelivery,
  WebhookEvent,
  WebhookHeaders,
  WebhookVerificationReason,
} from "./webhooks.js";
export type * from "./types.js";
export type { components, paths } from "./generated/schema.js";
