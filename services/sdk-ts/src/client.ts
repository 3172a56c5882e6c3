// MemoryClient: the typed client of the ai-memory HTTP API, a thin layer over the paths
// and bodies generated from the OpenAPI document (openapi-fetch), mirroring the Python
// SDK's MemoryClient (ai_memory.sdk.client): the same calls, the same errors, the same
// retry rules. Options are camelCase; records come back as the API writes them.
import { randomUUID } from "node:crypto";
import createClient, { type Client } from "openapi-fetch";
import { ServerError, errorFromResponse } from "./errors.js";
import type { paths } from "./generated/schema.js";
import { readReceipt } from "./receipts.js";
import { RetryPolicy, type RetryOptions } from "./retry.js";
import { Transport } from "./transport.js";
import type {
  AuditOut,
  BatchWriteOut,
  ChangeOut,
  DeleteOut,
  ErasureOut,
  ErasurePublicKeyOut,
  ErasureReceipt,
  HealthOut,
  ImportOut,
  MemoryIn,
  MemoryListOut,
  MemoryOut,
  MemoryState,
  MemoryType,
  NoteSaveOut,
  NotesOut,
  SearchOut,
  Timestamp,
  UsageOut,
  WebhookCreated,
  WebhookList,
  WebhookOut,
  WriteOut,
  ChangeKind,
} from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8080";
const NDJSON = "application/x-ndjson";
/** The reason `DELETE /v1/interactions/{id}` records when none is given. */
export const FORGET_INTERACTION_REASON = "interaction forgotten";

export interface MemoryClientOptions {
  /** Default http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer …` (a server in open development mode ignores it). */
  apiKey?: string;
  /** Per attempt, until the answer's headers arrive; default 30 000 (undefined: none). */
  timeoutMs?: number | null;
  /** A retry count (default 3), or the policy's options. */
  retries?: number | RetryOptions | RetryPolicy;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

export type AuditOptions = NonNullable<paths["/v1/audit"]["get"]["parameters"]["query"]>;

/** A memory's version for `ifMatch`: its number, "*", or an ETag as sent. */
export type Version = number | string;

export interface WriteOptions {
  scope: string;
  sourceAgent: string;
  type?: MemoryType;
  /** Default: a UUID made here, so the write is an idempotent PUT (safe to retry). */
  id?: string;
  tags?: string[];
  meta?: Record<string, unknown>;
  ttl?: number;
  createdAt?: Timestamp;
  /** Answer once every projection has applied the write (read-your-writes). */
  wait?: boolean;
  ifMatch?: Version;
}

export interface ListOptions {
  scope?: string | string[];
  type?: MemoryType | MemoryType[];
  state?: MemoryState | MemoryState[];
  tag?: string;
  cursor?: string | null;
  /** 1–1000; default 50. */
  limit?: number;
  minPosition?: number;
}

export interface SearchOptions {
  scope?: string;
  tags?: string[];
  types?: MemoryType[];
  /** Default 10. */
  topK?: number;
  mode?: "hybrid" | "semantic" | "keyword";
  states?: MemoryState[];
  /** Valid time: what was true then. */
  asOf?: Timestamp;
  /** Recorded time: what was known then. */
  knownAt?: Timestamp;
  rerank?: boolean;
  /** Interactions also score by their neighbouring turns; default true. */
  context?: boolean;
  /** Memories created in the periods the query names ("in March 2023") also compete in
   * their own right; default true. */
  dates?: boolean;
  minPosition?: number;
}

export interface ChangesOptions {
  /** A cursor to resume right after ("now": only what comes next). */
  since?: string | null;
  /** Long-poll for new changes until the loop is left (default); false: stop once caught up. */
  follow?: boolean;
  limit?: number;
  /** Seconds one long-poll waits for a change (keep it below timeoutMs); default 20. */
  pollTimeout?: number;
}

export interface CreateWebhookOptions {
  /** The scopes to follow (1–16), or ["*"]: every scope of the tenant, now and later. */
  scopes: string[];
  /** Which changes to deliver (default: written, state_changed and forgotten). */
  kinds?: ChangeKind[];
  /** Free text for people (≤ 500 chars). */
  description?: string;
}

export interface EraseOptions {
  reason: string;
  scope?: string;
  sourceAgent?: string;
  ids?: string[];
  interactionIds?: string[];
  everything?: boolean;
  /** Default: one made here, so a retry after a lost answer is the same erasure. */
  erasureId?: string;
  wait?: boolean;
}

/** What `importBundle` takes: a whole bundle, or its lines (text or record objects);
 * an async iterable is streamed and never retried (it cannot be replayed). */
export type ImportSource =
  | string
  | Uint8Array
  | Iterable<string | Record<string, unknown>>
  | AsyncIterable<string | Uint8Array>;

function entityTag(value: Version): string {
  const text = String(value).trim();
  return /^\d+$/.test(text) ? `"${text}"` : text;
}

function conditions(ifMatch?: Version, ifNoneMatch?: Version): Record<string, string> {
  const headers: Record<string, string> = {};
  if (ifMatch !== undefined) headers["If-Match"] = entityTag(ifMatch);
  if (ifNoneMatch !== undefined) headers["If-None-Match"] = entityTag(ifNoneMatch);
  return headers;
}

function list<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

const waitQuery = (wait: boolean | undefined): { wait?: boolean } => (wait ? { wait: true } : {});

/** Lines of a streamed body (NDJSON), without the empty ones. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for await (const chunk of body) {
    rest += decoder.decode(chunk, { stream: true });
    const parts = rest.split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) if (line.trim()) yield line.replace(/\r$/, "");
  }
  rest += decoder.decode();
  if (rest.trim()) yield rest;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class MemoryClient {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number | undefined;
  private readonly transport: Transport;
  private readonly api: Client<paths>;
  private readonly headers: Record<string, string>;

  constructor(options: MemoryClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_URL).replace(/\/+$/, "");
    this.retry = RetryPolicy.of(options.retries);
    this.timeoutMs = options.timeoutMs === undefined ? 30_000 : (options.timeoutMs ?? undefined);
    this.transport = new Transport(this.retry, this.timeoutMs, options.fetch ?? globalThis.fetch);
    this.headers = { ...options.headers };
    if (options.apiKey) this.headers.Authorization = `Bearer ${options.apiKey}`;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: this.headers,
      fetch: (request) => this.transport.send(request, { idempotent: true }),
    });
  }

  /** openapi-fetch's `fetch` for one call: the transport, told whether a retry is safe. */
  private via(idempotent: boolean): (request: Request) => Promise<Response> {
    return (request) => this.transport.send(request, { idempotent });
  }

  /** The answer's data, or its typed error. */
  private async data<T>(answer: Promise<Answer<T>>): Promise<T> {
    const { data, error, response } = await answer;
    if (!response.ok) throw errorFromResponse(response, error);
    if (data === undefined) {
      throw new ServerError(`unexpected empty answer from ${new URL(response.url).pathname}`, {
        status: response.status,
        code: "unexpected_response",
      });
    }
    return data;
  }

  // --- memories ----------------------------------------------------------------------

  /** Write a memory with an idempotent PUT (a UUID is made when `id` is unset), so it is
   * safe to retry; `record.id` of the answer is the id. `ifMatch` (a version read before,
   * or "*") writes only if the memory is still at it: PreconditionFailedError otherwise. */
  write(content: string, options: WriteOptions): Promise<WriteOut> {
    const record: MemoryIn = {
      content,
      scope: options.scope,
      source_agent: options.sourceAgent,
      type: options.type ?? "fact",
      ...(options.tags !== undefined && { tags: options.tags }),
      ...(options.meta !== undefined && { meta: options.meta }),
      ...(options.ttl !== undefined && { ttl: options.ttl }),
      ...(options.createdAt !== undefined && { created_at: options.createdAt }),
    };
    const upsert: { wait?: boolean; ifMatch?: Version } = {};
    if (options.wait !== undefined) upsert.wait = options.wait;
    if (options.ifMatch !== undefined) upsert.ifMatch = options.ifMatch;
    return this.upsert(options.id ?? randomUUID(), record, upsert);
  }

  /** `POST /v1/memories`: create (the server picks the id when `record.id` is unset; such
   * a request is never repeated once it may have reached the server). */
  create(record: MemoryIn, options: { wait?: boolean } = {}): Promise<WriteOut> {
    const idempotent = record.id != null;
    return this.data(
      this.api.POST("/v1/memories", {
        params: { query: waitQuery(options.wait) },
        body: record,
        fetch: this.via(idempotent),
      }),
    );
  }

  /** `PUT /v1/memories/{id}`: create (201) or update; unchanged → `changed: false`.
   * `ifMatch`: only while the memory is at this version ("*": exists); `ifNoneMatch: "*"`:
   * create only. A failed condition is PreconditionFailedError (412); a conditional write
   * is not repeated (the repeat would answer 412 for the caller's own write). */
  upsert(
    memoryId: string,
    record: MemoryIn,
    options: { wait?: boolean; ifMatch?: Version; ifNoneMatch?: Version } = {},
  ): Promise<WriteOut> {
    const { id: _id, ...body } = record;
    const headers = conditions(options.ifMatch, options.ifNoneMatch);
    const idempotent = Object.keys(headers).length === 0;
    return this.data(
      this.api.PUT("/v1/memories/{memory_id}", {
        params: { path: { memory_id: memoryId }, query: waitQuery(options.wait) },
        body,
        headers,
        fetch: this.via(idempotent),
      }),
    );
  }

  /** `POST /v1/memories:batch`: upsert up to 1,000 memories in one request. Each item
   * answers for itself in `results` (status 201/200, or 4xx with its `problem`); refused
   * items throw nothing. Items without an id get a UUID, so a batch naming each memory
   * once is retried safely; one naming a memory twice is not retried. */
  writeMany(items: Iterable<MemoryIn | Record<string, unknown>>, options: { wait?: boolean } = {}): Promise<BatchWriteOut> {
    const wire = Array.from(items, (item) =>
      typeof item === "object" && item !== null && !Array.isArray(item) && item.id == null
        ? { ...item, id: randomUUID() }
        : item,
    );
    const ids = wire.map((item) => JSON.stringify((item as { id?: unknown }).id));
    const once = new Set(ids).size === ids.length;
    return this.data(
      this.api.POST("/v1/memories:batch", {
        params: { query: waitQuery(options.wait) },
        body: { items: wire as MemoryIn[] },
        fetch: this.via(once),
      }),
    );
  }

  /** `GET /v1/memories/{id}`: NotFoundError (404), GoneError (410, forgotten). */
  get(memoryId: string, options: { minPosition?: number } = {}): Promise<MemoryOut> {
    const query = options.minPosition ? { min_position: options.minPosition } : {};
    return this.data(this.api.GET("/v1/memories/{memory_id}", { params: { path: { memory_id: memoryId }, query } }));
  }

  /** `DELETE /v1/memories/{id}`: forget for good (the id is never reused); idempotent
   * (`already_forgotten` the second time) unless `ifMatch` is given (412 when stale). */
  delete(memoryId: string, options: { reason?: string; wait?: boolean; ifMatch?: Version } = {}): Promise<DeleteOut> {
    const headers = conditions(options.ifMatch);
    return this.data(
      this.api.DELETE("/v1/memories/{memory_id}", {
        params: {
          path: { memory_id: memoryId },
          query: { ...waitQuery(options.wait), ...(options.reason ? { reason: options.reason } : {}) },
        },
        headers,
        fetch: this.via(Object.keys(headers).length === 0),
      }),
    );
  }

  /** `forget` is `delete`. */
  forget(memoryId: string, options: { reason?: string; wait?: boolean; ifMatch?: Version } = {}): Promise<DeleteOut> {
    return this.delete(memoryId, options);
  }

  /** `GET /v1/memories`: one page in id order (state active by default); pass
   * `next_cursor` as `cursor` for the next, until it is null. */
  listMemories(options: ListOptions = {}): Promise<MemoryListOut> {
    const query = {
      limit: options.limit ?? 50,
      ...(options.scope !== undefined && { scope: list(options.scope) }),
      ...(options.type !== undefined && { type: list(options.type) }),
      ...(options.state !== undefined && { state: list(options.state) }),
      ...(options.tag !== undefined && { tag: options.tag }),
      ...(options.cursor ? { cursor: options.cursor } : {}),
      ...(options.minPosition ? { min_position: options.minPosition } : {}),
    };
    return this.data(this.api.GET("/v1/memories", { params: { query } }));
  }

  /** Every matching memory, page by page (`listMemories` following the cursor). One
   * written meanwhile after the current page is met; one behind it is not. */
  async *iterMemories(options: Omit<ListOptions, "cursor" | "limit"> & { pageSize?: number } = {}): AsyncGenerator<MemoryOut> {
    const { pageSize = 200, ...filters } = options;
    let cursor: string | null = null;
    let minPosition = filters.minPosition;
    for (;;) {
      const page: MemoryListOut = await this.listMemories({
        ...filters,
        cursor,
        limit: pageSize,
        ...(minPosition !== undefined && { minPosition }),
      });
      yield* page.items;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
      minPosition = undefined;
    }
  }

  /** `POST /v1/memories/search`: hybrid (or semantic/keyword) search; each hit carries its
   * `score`, `components` and rerank `explanation`. */
  search(query: string, options: SearchOptions = {}): Promise<SearchOut> {
    const body = {
      query,
      top_k: options.topK ?? 10,
      mode: options.mode ?? "hybrid",
      rerank: options.rerank ?? true,
      context: options.context ?? true,
      dates: options.dates ?? true,
      ...(options.scope !== undefined && { scope: options.scope }),
      ...(options.tags !== undefined && { tags: options.tags }),
      ...(options.types !== undefined && { types: options.types }),
      ...(options.states !== undefined && { states: options.states }),
      ...(options.asOf !== undefined && { as_of: options.asOf }),
      ...(options.knownAt !== undefined && { known_at: options.knownAt }),
    };
    const params = { query: options.minPosition ? { min_position: options.minPosition } : {} };
    return this.data(this.api.POST("/v1/memories/search", { params, body }));
  }

  // --- change feed -------------------------------------------------------------------

  /** `GET /v1/changes`: what changed in `scope` (every scope the key may read when
   * undefined), oldest first — never content. Each entry's `cursor` resumes right after
   * it (`since`): keep the last one handled and a restart misses nothing and repeats
   * nothing. With `follow` (default) it long-polls until the loop is left. */
  async *changes(scope?: string | string[], options: ChangesOptions = {}): AsyncGenerator<ChangeOut> {
    const follow = options.follow ?? true;
    const pollTimeout = options.pollTimeout ?? 20;
    // A long-poll answers after up to pollTimeout s: a client timeout shorter than that
    // would cut every quiet poll and retry it for nothing.
    if (follow && this.timeoutMs !== undefined && pollTimeout * 1000 >= this.timeoutMs) {
      throw new RangeError(`pollTimeout (${pollTimeout} s) must be below the client's timeoutMs (${this.timeoutMs} ms)`);
    }
    let cursor = options.since ?? null;
    for (;;) {
      const query = {
        limit: options.limit ?? 100,
        timeout: follow ? pollTimeout : 0,
        ...(scope !== undefined && { scope: list(scope) }),
        ...(cursor ? { since: cursor } : {}),
      };
      const { error, response, data } = await this.api.GET("/v1/changes", {
        params: { query },
        headers: { Accept: NDJSON },
        parseAs: "text",
      });
      if (!response.ok) throw errorFromResponse(response, error);
      const rows = String(data ?? "").split("\n").filter((line) => line.trim());
      const trailer = JSON.parse(rows.pop() ?? "{}") as { next?: string; more?: boolean };
      if (typeof trailer.next !== "string") {
        throw new ServerError("the change feed answered without its trailer", { code: "unexpected_response" });
      }
      for (const row of rows) yield JSON.parse(row) as ChangeOut;
      cursor = trailer.next;
      if (!(trailer.more === true || follow)) return;
    }
  }

  // --- export / import ---------------------------------------------------------------

  /** `GET /v1/export`: the NDJSON bundle streamed line by line (header, records,
   * tombstones, trailer). Only opening the stream is retried. */
  async *exportLines(scope?: string | string[]): AsyncGenerator<string> {
    const query = scope === undefined ? {} : { scope: list(scope) };
    const { error, response } = await this.api.GET("/v1/export", { params: { query }, parseAs: "stream" });
    if (!response.ok) throw errorFromResponse(response, error);
    if (response.body === null) return;
    yield* lines(response.body);
  }

  /** `POST /v1/import`: a bundle (text, bytes, or its lines: strings or record objects)
   * → the report. Idempotent, so retried — unless the source is an async iterable, which
   * is streamed once. */
  async importBundle(source: ImportSource, options: { wait?: boolean; sourceName?: string } = {}): Promise<ImportOut> {
    const url = new URL(`${this.baseUrl}/v1/import`);
    if (options.wait) url.searchParams.set("wait", "true");
    if (options.sourceName) url.searchParams.set("source", options.sourceName);
    const headers = { ...this.headers, "Content-Type": NDJSON };
    let request: Request;
    let oneShot = false;
    if (typeof source === "string" || source instanceof Uint8Array) {
      request = new Request(url, { method: "POST", headers, body: source as BodyInit });
    } else if (Symbol.asyncIterator in source) {
      const encoder = new TextEncoder();
      const iterator = source[Symbol.asyncIterator]();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(typeof next.value === "string" ? encoder.encode(`${next.value.replace(/\n$/, "")}\n`) : next.value);
        },
      });
      request = new Request(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
      oneShot = true;
    } else {
      let text = "";
      for (const line of source) text += `${typeof line === "string" ? line.replace(/\n$/, "") : JSON.stringify(line)}\n`;
      request = new Request(url, { method: "POST", headers, body: text });
    }
    const response = await this.transport.send(request, { idempotent: !oneShot, oneShot });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the error (or ServerError below) says so
    }
    if (!response.ok) throw errorFromResponse(response, body);
    if (typeof body !== "object" || body === null) {
      throw new ServerError("unexpected answer from /v1/import", { status: response.status, code: "unexpected_response" });
    }
    return body as ImportOut;
  }

  // --- governed memory, notes, operations --------------------------------------------

  /** `POST /v1/interactions`: keep a raw turn (L0) and extract memories (L1). Not retried
   * once it may have reached the server (a repeat would record the turn twice). */
  recordInteraction(
    text: string,
    options: { scope: string; sourceAgent: string; sessionId?: string; at?: Timestamp; wait?: boolean },
  ): Promise<Record<string, unknown>> {
    const body = {
      text,
      scope: options.scope,
      source_agent: options.sourceAgent,
      ...(options.sessionId !== undefined && { session_id: options.sessionId }),
      ...(options.at !== undefined && { at: options.at }),
    };
    return this.data(
      this.api.POST("/v1/interactions", { params: { query: waitQuery(options.wait) }, body, fetch: this.via(false) }),
    ) as Promise<Record<string, unknown>>;
  }

  /** `PUT /v1/notes`: save or replace the note on a topic (`note: "off"` deletes it). */
  saveNote(agent: string, topic: string | string[], note: string): Promise<NoteSaveOut> {
    return this.data(this.api.PUT("/v1/notes", { body: { agent, topic, note } }));
  }

  /** `GET /v1/notes`: the best 3 notes for a topic and all your topics. */
  recallNotes(agent: string, topic?: string): Promise<NotesOut> {
    const query = { agent, ...(topic !== undefined && { topic }) };
    return this.data(this.api.GET("/v1/notes", { params: { query } }));
  }

  /** `GET /v1/audit` (an admin key, or an operator naming `tenant`): who did what, oldest
   * first — never content. Continue with `since: page.next` while `page.more`. */
  audit(options: AuditOptions = {}): Promise<AuditOut> {
    const query = { limit: options.limit ?? 100, ...options };
    return this.data(this.api.GET("/v1/audit", { params: { query } }));
  }

  /** `GET /v1/usage`: the tenant's stored memories, bytes and quota. */
  usage(options: { tenant?: string } = {}): Promise<UsageOut> {
    return this.data(this.api.GET("/v1/usage", { params: { query: options } }));
  }

  /** `GET /healthz`. */
  health(): Promise<HealthOut> {
    return this.data(this.api.GET("/healthz", {})) as Promise<HealthOut>;
  }

  // --- subject erasure (an admin key of the tenant; others get ForbiddenError) --------

  /** `POST /v1/erasures`: forget everything of one subject — exactly one of `scope`,
   * `sourceAgent`, memory `ids`, raw `interactionIds` or `everything` of the tenant —
   * destroying their data keys. The same `erasureId` again is the same erasure
   * (`already_done`); one is made here when unset, so the call is safe to retry. */
  erase(options: EraseOptions): Promise<ErasureOut> {
    const body = {
      reason: options.reason,
      erasure_id: options.erasureId ?? `era-${randomUUID()}`,
      ...(options.scope !== undefined && { scope: options.scope }),
      ...(options.sourceAgent !== undefined && { source_agent: options.sourceAgent }),
      ...(options.ids !== undefined && { ids: options.ids }),
      ...(options.interactionIds !== undefined && { interaction_ids: options.interactionIds }),
      ...(options.everything ? { everything: true } : {}),
    };
    return this.data(
      this.api.POST("/v1/erasures", { params: { query: waitQuery(options.wait) }, body }),
    ) as Promise<ErasureOut>;
  }

  /** `GET /v1/erasures/{id}`: the signed receipt, read strictly (a duplicated key or a
   * number written another way is refused before anyone verifies it); `raw` is the text
   * as served. Check it offline with `verifyReceipt`. */
  async erasureReceipt(erasureId: string): Promise<ErasureReceipt> {
    const { data, error, response } = await this.api.GET("/v1/erasures/{erasure_id}", {
      params: { path: { erasure_id: erasureId } },
      parseAs: "text",
    });
    if (!response.ok) throw errorFromResponse(response, error);
    return readReceipt(data ?? "");
  }

  /** `GET /v1/erasures/public-key`: the Ed25519 key (`pem`) that verifies receipts. */
  erasurePublicKey(): Promise<ErasurePublicKeyOut> {
    return this.data(this.api.GET("/v1/erasures/public-key", {})) as Promise<ErasurePublicKeyOut>;
  }

  /** `DELETE /v1/interactions/{id}`: forget one raw turn and every memory extracted from
   * it (an erasure). Not retried: each call records an erasure of its own. */
  forgetInteraction(
    interactionId: string,
    options: { reason?: string; wait?: boolean } = {},
  ): Promise<ErasureOut> {
    return this.data(
      this.api.DELETE("/v1/interactions/{interaction_id}", {
        params: {
          path: { interaction_id: interactionId },
          query: { ...waitQuery(options.wait), reason: options.reason ?? FORGET_INTERACTION_REASON },
        },
        fetch: this.via(false),
      }),
    ) as Promise<ErasureOut>;
  }

  // --- webhooks (an admin key of the tenant; others get ForbiddenError) ---------------

  /** `POST /v1/webhooks`: deliver the changes of `scopes` from now on to `url`, signed.
   * The answer's `secret` verifies deliveries (`verifyWebhook`) and is never shown
   * again. Not retried: a repeat after a lost answer would subscribe the URL twice. */
  createWebhook(url: string, options: CreateWebhookOptions): Promise<WebhookCreated> {
    const body = {
      url,
      scopes: options.scopes,
      ...(options.kinds !== undefined && { kinds: options.kinds }),
      description: options.description ?? "",
    };
    return this.data(this.api.POST("/v1/webhooks", { body, fetch: this.via(false) }));
  }

  /** `GET /v1/webhooks`: the tenant's webhooks and their delivery state (no secrets). */
  listWebhooks(): Promise<WebhookList> {
    return this.data(this.api.GET("/v1/webhooks", {}));
  }

  /** `GET /v1/webhooks/{id}`: active or paused (and why), the cursor acknowledged, the
   * last attempt, consecutive failures; NotFoundError (also for another tenant's). */
  getWebhook(webhookId: string): Promise<WebhookOut> {
    return this.data(this.api.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } } }));
  }

  /** `DELETE /v1/webhooks/{id}`: stop delivering for good. */
  async deleteWebhook(webhookId: string): Promise<void> {
    const { error, response } = await this.api.DELETE("/v1/webhooks/{webhook_id}", {
      params: { path: { webhook_id: webhookId } },
    });
    if (!response.ok) throw errorFromResponse(response, error);
  }

  /** `POST /v1/webhooks/{id}:resume`: deliver again from the last change the receiver
   * acknowledged (nothing written meanwhile is skipped). */
  resumeWebhook(webhookId: string): Promise<WebhookOut> {
    return this.data(
      this.api.POST("/v1/webhooks/{webhook_id}:resume", { params: { path: { webhook_id: webhookId } } }),
    );
  }
}
