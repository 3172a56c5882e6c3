// The shapes the client takes and returns: the API's own schemas (generated from the
// OpenAPI document) and, for the answers the document does not describe as a schema
// (erasures, receipts, the change feed, health), their shapes as the Python SDK reads them.
import type { components } from "./generated/schema.js";

type Schemas = components["schemas"];
export type MemoryIn = Schemas["MemoryIn"];
export type MemoryOut = Schemas["MemoryOut"];
export type MemoryType = Schemas["MemoryType"];
export type MemoryState = Schemas["MemoryState"];
export type WriteOut = Schemas["WriteOut"];
export type BatchWriteOut = Schemas["BatchWriteOut"];
export type BatchItemOut = Schemas["BatchItemOut"];
export type DeleteOut = Schemas["DeleteOut"];
export type MemoryListOut = Schemas["MemoryListOut"];
export type SearchIn = Schemas["SearchIn"];
export type SearchOut = Schemas["SearchOut"];
export type SearchHitOut = Schemas["SearchHitOut"];
export type ImportOut = Schemas["ImportOut"];
export type InteractionIn = Schemas["InteractionIn"];
export type NoteSaveOut = Schemas["NoteSaveOut"];
export type NotesOut = Schemas["NotesOut"];
export type AuditOut = Schemas["AuditOut"];
export type UsageOut = Schemas["UsageOut"];
export type TurnIn = Schemas["TurnIn"];
export type ErasureIn = Schemas["ErasureIn"];
export type WebhookIn = Schemas["WebhookIn"];
export type WebhookOut = Schemas["WebhookOut"];
export type WebhookCreated = Schemas["WebhookCreated"];
export type WebhookList = Schemas["WebhookList"];
export type WebhookPosition = Schemas["WebhookPosition"];
/** What a webhook delivers: a subset of these kinds of change (all by default). */
export type ChangeKind = NonNullable<WebhookIn["kinds"]>[number];

/** A timestamp as the API accepts it: ISO-8601, a date, Unix seconds or milliseconds. */
export type Timestamp = string | number;

/** One entry of the change feed (`GET /v1/changes`): what changed, never content. */
export interface ChangeOut {
  /** Resume right after this entry (`since`). */
  cursor: string;
  kind: "written" | "state_changed" | "forgotten";
  id: string;
  scope: string;
  version: number | null;
  state: string | null;
  at: string;
  actor: string;
  /** A read with `minPosition: position` sees the change. */
  position: number;
}

/** `POST /v1/erasures` / `DELETE /v1/interactions/{id}`: what was erased. */
export interface ErasureOut {
  erasure_id: string;
  position: number;
  memories: number;
  interactions: number;
  /** True: this erasure id was done before; nothing new happened. */
  already_done: boolean;
  /** The receipt's path, `/v1/erasures/{erasure_id}`. */
  receipt: string;
}

/** `GET /v1/erasures/public-key`. */
export interface ErasurePublicKeyOut {
  algorithm: string;
  key_id: string;
  pem: string;
}

/** What a receipt says (ids, positions, times — never content). */
export interface ErasureReceiptBody {
  format: string;
  erasure_id: string;
  tenant: string;
  actor: string;
  requested_at: string;
  request: { criteria: Record<string, unknown>; reason: string };
  erased: { memory_ids: string[]; interaction_ids: string[] };
  events: { erasure: number; tombstones: Record<string, number> };
  projections: Record<string, unknown>[];
  keys: Record<string, unknown>;
  verification: { passed: boolean; [member: string]: unknown };
  issued_at: string;
  [member: string]: unknown;
}

export interface ReceiptSignature {
  algorithm: string;
  key_id: string;
  value: string;
}

/** `GET /v1/erasures/{id}`: the signed receipt, with `raw`, the text exactly as served —
 * what `verifyReceipt` checks and what an auditor should archive. */
export interface ErasureReceipt {
  receipt: ErasureReceiptBody;
  signature: ReceiptSignature;
  raw: string;
}

/** `GET /healthz`. */
export interface HealthOut {
  status: string;
  [member: string]: unknown;
}
