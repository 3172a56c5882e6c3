/**
 * Generated from the ai-memory OpenAPI document by openapi-typescript. Do not edit:
 * regenerate with `make sdk-ts-generate` (services/sdk-ts: `npm run generate`).
 */

export interface paths {
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List memories page by page */
        get: operations["listMemories"];
        put?: never;
        /** Write a memory (a new id when the body has none) */
        post: operations["createMemory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a memory */
        get: operations["getMemory"];
        /** Create or update a memory by id */
        put: operations["upsertMemory"];
        post?: never;
        /** Forget a memory */
        delete: operations["deleteMemory"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search memories (hybrid: semantic, keyword, recency, importance) */
        post: operations["searchMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export memories as an NDJSON bundle */
        get: operations["exportMemories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import an NDJSON bundle or bare records */
        post: operations["importMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories:batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upsert up to 1,000 memories in one request
         * @description Upsert up to 1,000 memories: each item as ``PUT /v1/memories/{id}`` would
         *     (idempotent, versioned, never moving scope, never reusing a forgotten id), all
         *     decided together and appended to the log at once. One result per item, in order.
         */
        post: operations["batchUpsertMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/notes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recall an agent's best notes for a topic */
        get: operations["recallNotes"];
        /** Save, replace or delete an agent's note */
        put: operations["saveNote"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/interactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record a raw interaction and extract memories from it
         * @description Keep a raw interaction (L0) and extract atomic memories (L1) from it; conflicts
         *     with current memories are resolved by the θ rule and every decision is an event.
         */
        post: operations["recordInteraction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/write-triggers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Suggest what to write for a conversation turn
         * @description Whether and what to write for a conversation turn (core/governance/triggers): an explicit
         *     preference, a task closed, a problem solved (→ skill), a user correction, or the
         *     conversation summary. Advisory: nothing is written.
         */
        post: operations["suggestWrites"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/persona": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a scope's persona (L3)
         * @description L3: the active preferences, goals, facts, skills and tasks of a scope — now, or
         *     as true at ``as_of`` and as known at ``known_at``.
         */
        get: operations["getPersona"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a scope's episodes (L2)
         * @description L2: extracted memories grouped by the conversation they came from.
         */
        get: operations["listEpisodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/governance/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one governor pass now
         * @description Run one governor pass now (TTL expiry, soft forgetting, slow-update takeovers).
         */
        post: operations["runGovernor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/lineage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a memory's lineage
         * @description What this memory superseded, what superseded it, and the events and rules behind
         *     each state change (kept after forgetting; never content).
         */
        get: operations["getLineage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the tenant's audit trail
         * @description Who did what in the tenant, oldest first: position, time, actor, action,
         *     memory ids and scope of each event — never content. A page reads at most
         *     ``limit`` of the tenant's events; ``actor`` and ``action`` filter that page, so
         *     it may be short while ``more`` is true: continue with ``since=next``.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Follow the change feed (NDJSON long-poll or Server-Sent Events) */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures/public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the key that verifies erasure receipts
         * @description The Ed25519 public key that verifies erasure receipts (``ai-memory
         *     verify-receipt``).
         */
        get: operations["getReceiptPublicKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Erase a subject (crypto-shredding) and sign a receipt
         * @description Forget everything of a subject — a scope, a source agent, memory ids or raw
         *     turns: memories, raw interactions, notes, episodes and persona — destroying their
         *     keys; returns the erasure id. The same ``erasure_id`` again is the same erasure.
         */
        post: operations["createErasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures/{erasure_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an erasure's signed receipt
         * @description The erasure's receipt, signed with the server's key: what was erased, the
         *     events, each projection's position, when the keys were destroyed, and a
         *     verification scan made now.
         */
        get: operations["getErasureReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/interactions/{interaction_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Forget a raw interaction and the memories extracted from it
         * @description Forget one raw turn: its data key is destroyed and every memory extracted from
         *     it is forgotten (an erasure of ``interaction_ids: [id]``; the receipt is its).
         */
        delete: operations["deleteInteraction"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the tenant's usage and quota
         * @description What the tenant stores: its memories (archived ones included; what the memory
         *     quota counts), the UTF-8 bytes of their content, its quota, and up to which log
         *     position of each partition that is counted.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks
         * @description The tenant's webhooks and their delivery state (never their secrets).
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe a URL to changes
         * @description Subscribe a URL to the changes of some scopes (from now on). The answer holds
         *     the signing secret: it is never shown again.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook
         * @description One webhook: active or paused (and why), the cursor and log positions
         *     acknowledged, the last attempt, consecutive failures.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description Stop delivering for good (a delivery in flight may still arrive).
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}:resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused webhook
         * @description Resume a paused webhook: deliveries start again from the last change the
         *     receiver acknowledged (nothing is skipped).
         */
        post: operations["resumeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and projection health */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AuditEntryOut
         * @description One event of the tenant's log: who did what to which memories — never content.
         */
        AuditEntryOut: {
            /**
             * Position
             * @description The event's log position.
             */
            position: number;
            /**
             * Time
             * @description When the event was recorded (ISO 8601).
             */
            time: string;
            /**
             * Actor
             * @description Who caused it: the API key (key:<id>) or a component.
             */
            actor: string;
            /**
             * Action
             * @enum {string}
             */
            action: "written" | "forgotten" | "state_changed" | "recalled" | "imported" | "interaction_recorded" | "erased";
            /**
             * Memory Ids
             * @description The memories it concerns (may be empty).
             */
            memory_ids: string[];
            /**
             * Scope
             * @description The memories' scope; null for an import batch.
             */
            scope: string | null;
        };
        /**
         * AuditOut
         * @description A page of the tenant's audit trail, oldest first.
         */
        AuditOut: {
            /** Tenant */
            tenant: string;
            /** Entries */
            entries: components["schemas"]["AuditEntryOut"][];
            /**
             * Next
             * @description Cursor of what this page consumed: pass it as since.
             */
            next: string;
            /**
             * More
             * @description Whether more events may follow next right now.
             */
            more: boolean;
        };
        /** BatchItemOut */
        BatchItemOut: {
            /**
             * Index
             * @description The item's position in `items`, from 0.
             */
            index: number;
            /**
             * Status
             * @description 201 created, 200 updated or unchanged, 4xx refused (see `problem`).
             */
            status: number;
            /** Id */
            id?: string | null;
            /** Version */
            version?: number | null;
            /**
             * Changed
             * @description False when the same content was stored.
             */
            changed?: boolean | null;
            /**
             * Position
             * @description The position token of the item's write.
             */
            position?: number | null;
            problem?: components["schemas"]["ItemProblemOut"] | null;
            /**
             * Redacted
             * @description Fields whose credentials were redacted (`redact` secret policy).
             */
            redacted?: string[] | null;
        };
        /** BatchWriteIn */
        BatchWriteIn: {
            /**
             * Items
             * @description Up to 1000 memories, each as the body of PUT /v1/memories/{id} plus its `id` (a UUID is generated when absent; give ids to make a retried batch idempotent).
             */
            items: components["schemas"]["MemoryIn"][];
        };
        /** BatchWriteOut */
        BatchWriteOut: {
            /**
             * Results
             * @description One per item, in input order.
             */
            results: components["schemas"]["BatchItemOut"][];
            /** Written */
            written: number;
            /** Unchanged */
            unchanged: number;
            /** Rejected */
            rejected: number;
            /**
             * Position
             * @description The token of the batch's newest write (0: none). On the embedded log, min_position for reading every one of them; on a partitioned log (Kafka) writes of different partitions are not ordered: use each item's position.
             */
            position: number;
        };
        /** DeleteOut */
        DeleteOut: {
            /** Id */
            id: string;
            /** Position */
            position: number;
            /**
             * Forgotten
             * @default true
             */
            forgotten: boolean;
            /** Already Forgotten */
            already_forgotten: boolean;
        };
        /** EpisodeOut */
        EpisodeOut: {
            /**
             * Session Id
             * @description The conversation; null for memories without one.
             */
            session_id: string | null;
            /** Memories */
            memories: {
                [key: string]: unknown;
            }[];
        };
        /**
         * EpisodesOut
         * @description ``GET /v1/episodes``: extracted memories grouped by conversation (L2).
         */
        EpisodesOut: {
            /** Scope */
            scope: string;
            /** Episodes */
            episodes: components["schemas"]["EpisodeOut"][];
        };
        /** ErasureIn */
        ErasureIn: {
            /**
             * Scope
             * @description Erase everything of this scope.
             */
            scope?: string | null;
            /**
             * Source Agent
             * @description Erase everything this agent wrote or said, and its notes.
             */
            source_agent?: string | null;
            /**
             * Ids
             * @description Erase these memories.
             */
            ids?: string[] | null;
            /**
             * Interaction Ids
             * @description Erase these raw turns.
             */
            interaction_ids?: string[] | null;
            /**
             * Everything
             * @description Erase everything of the tenant (offboarding): every memory and turn.
             */
            everything?: boolean | null;
            /**
             * Reason
             * @description Why: recorded on the log and in the receipt.
             */
            reason: string;
            /**
             * Erasure Id
             * @description Make a retry the same erasure (1-128 of A-Z a-z 0-9 . _ : -).
             */
            erasure_id?: string | null;
        };
        /**
         * ErasureOut
         * @description ``POST /v1/erasures`` and ``DELETE /v1/interactions/{id}``.
         */
        ErasureOut: {
            /** Erasure Id */
            erasure_id: string;
            /**
             * Position
             * @description Log position of the erasure; pass as min_position.
             */
            position: number;
            /**
             * Memories
             * @description How many memories were erased.
             */
            memories: number;
            /**
             * Interactions
             * @description How many raw turns were erased.
             */
            interactions: number;
            /**
             * Already Done
             * @description True when this erasure id had already run (200).
             */
            already_done: boolean;
            /**
             * Receipt
             * @description Where its signed receipt is read: /v1/erasures/{id}.
             */
            receipt: string;
        };
        /**
         * GovernorRunOut
         * @description ``POST /v1/governance/run``: the transitions one governor pass made.
         */
        GovernorRunOut: {
            /**
             * Transitions
             * @description One per state change: scope, memory id, from and to state, rule.
             */
            transitions: {
                [key: string]: unknown;
            }[];
        };
        /**
         * HealthOut
         * @description Without a key (once keys exist) or with a reader or writer key, only ``status``;
         *     an admin or operator key sees the positions, lag and writers of every tenant.
         */
        HealthOut: {
            /**
             * Status
             * @description degraded: a projection is stuck or dead letters wait (still 200).
             * @enum {string}
             */
            status: "ok" | "degraded";
            /** Version */
            version?: string | null;
            /** Projections */
            projections?: components["schemas"]["ProjectionStatusOut"][] | null;
            /**
             * Lag
             * @description Events behind, per projection.
             */
            lag?: {
                [key: string]: number;
            } | null;
            /** Embedder */
            embedder?: string | null;
            /** Stuck */
            stuck?: {
                [key: string]: unknown;
            }[] | null;
            /** Dead Letters */
            dead_letters?: {
                [key: string]: unknown;
            } | null;
            /** Dead Letters Error */
            dead_letters_error?: string | null;
            /** Writers */
            writers?: {
                [key: string]: unknown;
            } | null;
            /** Warnings */
            warnings?: unknown[] | null;
        };
        /** ImportError_ */
        ImportError_: {
            /** Line */
            line: number;
            /** Code */
            code: string;
            /** Message */
            message: string;
            /** Field */
            field?: string | null;
        };
        /** ImportOut */
        ImportOut: {
            /** Batch Id */
            batch_id: string;
            /** Received */
            received: number;
            /** Written */
            written: number;
            /** Unchanged */
            unchanged: number;
            /** Skipped Tombstoned */
            skipped_tombstoned: number;
            /** Tombstones Applied */
            tombstones_applied: number;
            /** Rejected */
            rejected: number;
            /**
             * Stale
             * @default 0
             */
            stale: number;
            /**
             * Redacted
             * @default 0
             */
            redacted: number;
            /**
             * States Applied
             * @default 0
             */
            states_applied: number;
            /** Errors */
            errors: components["schemas"]["ImportError_"][];
            /** Errors Truncated */
            errors_truncated: boolean;
            /** Position */
            position: number;
        };
        /** InteractionIn */
        InteractionIn: {
            /**
             * Scope
             * @example user:alice
             */
            scope: string;
            /** Source Agent */
            source_agent: string;
            /** Session Id */
            session_id?: string | null;
            /**
             * Text
             * @description What was said, verbatim (English or Chinese rules built in).
             */
            text: string;
            /**
             * At
             * @description When it was said; defaults to now.
             */
            at?: string | number | null;
        };
        /**
         * InteractionOut
         * @description ``POST /v1/interactions``: the raw turn kept and what was extracted from it.
         */
        InteractionOut: {
            /** Interaction Id */
            interaction_id: string;
            /**
             * Position
             * @description Log position of the last event; pass as min_position.
             */
            position: number;
            /**
             * Memories
             * @description The memories written (L1).
             */
            memories: {
                [key: string]: unknown;
            }[];
            /**
             * Transitions
             * @description State changes of current memories the θ rule decided (supersede, merge…).
             */
            transitions: {
                [key: string]: unknown;
            }[];
            /**
             * Redacted
             * @description Present when the text's credentials were redacted: ['text'].
             */
            redacted?: string[] | null;
        };
        /**
         * ItemProblemOut
         * @description Why one item was refused: the problem the single-memory route would answer.
         */
        ItemProblemOut: {
            /** Type */
            type: string;
            /** Title */
            title: string;
            /** Status */
            status: number;
            /** Code */
            code: string;
            /** Detail */
            detail: string;
            /** Field */
            field?: string | null;
            /** Rule */
            rule?: string | null;
        };
        /**
         * LineageOut
         * @description ``GET /v1/memories/{id}/lineage``: never content.
         */
        LineageOut: {
            /** Id */
            id: string;
            /**
             * State
             * @description active, archived…; deleted when forgotten; else unknown.
             */
            state: string;
            /** Version */
            version: number | null;
            /** Supersedes */
            supersedes: string[];
            /** Superseded By */
            superseded_by: string[];
            /**
             * Valid From
             * @description A live memory's validity window.
             */
            valid_from?: string | null;
            /** Valid To */
            valid_to?: string | null;
            /**
             * Events
             * @description Oldest first: position, at, kind, rule…
             */
            events: {
                [key: string]: unknown;
            }[];
        };
        /** MemoryIn */
        MemoryIn: {
            /**
             * Id
             * @description Stable id; a UUID is generated when absent.
             */
            id?: string | null;
            type: components["schemas"]["MemoryType"];
            /**
             * Content
             * @description Self-contained UTF-8 text (the source of truth), at most 16 KiB (AIMEM_MAX_CONTENT_BYTES) as UTF-8.
             */
            content: string;
            /**
             * Scope
             * @description Namespace: 'public' or '<kind>:<name>', e.g. 'user:alice'.
             * @example user:alice
             */
            scope: string;
            /**
             * Source Agent
             * @description The agent that wrote this memory.
             */
            source_agent: string;
            /**
             * Created At
             * @description ISO-8601 with offset or Z, naive ISO / 'YYYY-MM-DD HH:mm:ss' (UTC), or Unix seconds / milliseconds. Returned as UTC ISO-8601 with Z. Defaults to now (on upsert: the original creation time). Years 1–9999 after the offset.
             */
            created_at?: string | number | null;
            /**
             * Ttl
             * @description Seconds until the memory expires (at most 100 years, and the expiry must fall before year 10000).
             */
            ttl?: number | null;
            /** Tags */
            tags?: string[] | null;
            /**
             * Meta
             * @description Free-form JSON object (at most 16 KiB as JSON, 32 levels deep).
             */
            meta?: Record<string, unknown> | null;
            /**
             * Schema Version
             * @description The record schema this body follows; omit it for the current one.
             * @enum {integer}
             */
            schema_version?: 1;
        };
        /** MemoryListOut */
        MemoryListOut: {
            /**
             * Items
             * @description Memories in id order.
             */
            items: components["schemas"]["MemoryOut"][];
            /**
             * Next Cursor
             * @description Pass as `cursor` for the next page; null when the listing is complete. A page may hold fewer than `limit` items and still have a next one.
             */
            next_cursor: string | null;
        };
        /** MemoryOut */
        MemoryOut: {
            /** Id */
            id: string;
            type: components["schemas"]["MemoryType"];
            /** Content */
            content: string;
            /** Scope */
            scope: string;
            /** Source Agent */
            source_agent: string;
            /** Created At */
            created_at: string;
            /** Ttl */
            ttl: number | null;
            /** Tags */
            tags: string[];
            /** Meta */
            meta: {
                [key: string]: unknown;
            };
            /** Schema Version */
            schema_version: number;
            /** Version */
            version: number;
            state: components["schemas"]["MemoryState"];
            /** Updated At */
            updated_at?: string | null;
            /** Read Count */
            read_count?: number | null;
        };
        /**
         * MemoryState
         * @enum {string}
         */
        MemoryState: "active" | "historical" | "archived" | "forgotten";
        /**
         * MemoryType
         * @enum {string}
         */
        MemoryType: "fact" | "task" | "preference" | "skill" | "interaction";
        /**
         * NoteIn
         * @description Save, replace or (note: 'off') delete the note on a topic.
         */
        NoteIn: {
            /**
             * Agent
             * @description Your agent id; notes live in scope 'agent:<agent>'.
             */
            agent: string;
            /**
             * Topic
             * @description Up to 5 tags in any language, split on commas or spaces, e.g. 'neo, jobs'. Case-insensitive; the same tag set is the same topic.
             * @example [
             *       "neo",
             *       "jobs"
             *     ]
             */
            topic: string | string[];
            /**
             * Note
             * @description At most 500 characters. 'off' deletes the note on this topic.
             * @example neo asked about X; I owe a plain answer
             */
            note: string;
            /** @description Memory type; defaults to 'fact'. */
            type?: components["schemas"]["MemoryType"] | null;
        };
        /**
         * NoteSaveOut
         * @description What a save did.
         */
        NoteSaveOut: {
            /**
             * Id
             * @description The memory id of the note (readable at /v1/memories/{id}).
             */
            id: string;
            /** Agent */
            agent: string;
            /**
             * Topic
             * @description The normalised tags of the topic.
             */
            topic: string[];
            /**
             * Status
             * @enum {string}
             */
            status: "created" | "replaced" | "unchanged" | "deleted" | "already_off";
            /**
             * Version
             * @description Memory version; null when deleted.
             */
            version: number | null;
            /**
             * Position
             * @description Log position of the change (0 when nothing changed).
             */
            position: number;
            /** Notes Used */
            notes_used: number;
            /** Quota */
            quota: number;
            /**
             * Redacted
             * @description note / topic when their credentials were redacted (secret policy).
             */
            redacted?: string[] | null;
        };
        /**
         * NotesOut
         * @description The notes recalled for a topic and every topic of the agent.
         */
        NotesOut: {
            /** Agent */
            agent: string;
            /**
             * Topic
             * @description The normalised query words.
             */
            topic: string[];
            /**
             * Topic Notes
             * @description Best matches first (at most 3).
             */
            topic_notes: components["schemas"]["TopicNoteOut"][];
            /**
             * Your Topics
             * @description All your topics, most read first.
             */
            your_topics: components["schemas"]["YourTopicOut"][];
            /** Notes Used */
            notes_used: number;
            /** Quota */
            quota: number;
            /**
             * Recall Position
             * @description Log position of the read recorded for topic_notes; null if none.
             */
            recall_position: number | null;
        };
        /**
         * PersonaOut
         * @description ``GET /v1/persona``: the active memories of a scope by slot (L3).
         */
        PersonaOut: {
            /** Scope */
            scope: string;
            /** Preferences */
            preferences: {
                [key: string]: unknown;
            }[];
            /** Goals */
            goals: {
                [key: string]: unknown;
            }[];
            /** Facts */
            facts: {
                [key: string]: unknown;
            }[];
            /** Skills */
            skills: {
                [key: string]: unknown;
            }[];
            /** Tasks */
            tasks: {
                [key: string]: unknown;
            }[];
        };
        /** ProjectionStatusOut */
        ProjectionStatusOut: {
            /** Projection */
            projection: string;
            /** Partition */
            partition: number;
            /** Position */
            position: number;
            /** Head */
            head: number;
            /** Lag */
            lag: number;
            /** In Process */
            in_process: boolean;
        };
        /**
         * QuotaOut
         * @description The tenant's limits on what it stores.
         */
        QuotaOut: {
            /**
             * Max Memories
             * @description The most memories the tenant may store; null when it has no quota.
             */
            max_memories: number | null;
        };
        /**
         * ReceiptKeyOut
         * @description ``GET /v1/erasures/public-key``: the key that verifies receipts.
         */
        ReceiptKeyOut: {
            /**
             * Algorithm
             * @description Ed25519.
             */
            algorithm: string;
            /** Key Id */
            key_id: string;
            /**
             * Pem
             * @description The public key, PEM (SubjectPublicKeyInfo).
             */
            pem: string;
        };
        /**
         * ReceiptOut
         * @description ``GET /v1/erasures/{id}``: the receipt and its signature (``ai-memory verify-receipt``).
         */
        ReceiptOut: {
            /**
             * Receipt
             * @description What was erased, the events, each projection's position, when the keys were destroyed, and a verification scan made now.
             */
            receipt: {
                [key: string]: unknown;
            };
            signature: components["schemas"]["ReceiptSignatureOut"];
        };
        /** ReceiptSignatureOut */
        ReceiptSignatureOut: {
            /**
             * Algorithm
             * @description Ed25519.
             */
            algorithm: string;
            /**
             * Key Id
             * @description The id of the key that signed (GET /v1/erasures/public-key).
             */
            key_id: string;
            /**
             * Value
             * @description Base64 signature of the canonical JSON of `receipt`.
             */
            value: string;
        };
        /** SearchHitOut */
        SearchHitOut: {
            record: components["schemas"]["MemoryOut"];
            /** Score */
            score: number;
            /**
             * Components
             * @description Each retriever's rank and score; `context`: what neighbouring turns added; `dated_*`: the retrievers restricted to the periods the query names.
             */
            components: {
                [key: string]: number;
            };
            /**
             * Explanation
             * @description The rerank's components: weight, value and contribution of each.
             */
            explanation?: {
                [key: string]: unknown;
            } | null;
        };
        /** SearchIn */
        SearchIn: {
            /**
             * Query
             * @description What to look for (at most AIMEM_MAX_QUERY_CHARS characters).
             */
            query: string;
            /** Scope */
            scope?: string | null;
            /**
             * Tags
             * @description Match memories with any of these tags.
             */
            tags?: string[] | null;
            /** Types */
            types?: components["schemas"]["MemoryType"][] | null;
            /**
             * Top K
             * @default 10
             */
            top_k: number;
            /**
             * Mode
             * @default hybrid
             * @enum {string}
             */
            mode: "hybrid" | "semantic" | "keyword";
            /**
             * States
             * @description Lifecycle states to include (default: only active memories).
             */
            states?: components["schemas"]["MemoryState"][] | null;
            /**
             * As Of
             * @description Valid time, what was true then (ISO-8601 or Unix time): each memory is judged inside its validity window, from its created_at (or its import's valid_at) to the valid time of what superseded it.
             */
            as_of?: string | number | null;
            /**
             * Known At
             * @description Recorded time, what the system believed then (ISO-8601 or Unix time): only what the log held at this time counts.
             */
            known_at?: string | number | null;
            /**
             * Rerank
             * @description Two-stage retrieval: recall K candidates by hybrid search, then rank by relevance 0.6 + recency 0.25 + type priority 0.15 (configurable), with explanations.
             * @default true
             */
            rerank: boolean;
            /**
             * Context
             * @description Conversation context: an interaction also scores by the interactions just before and after it in its scope and session (meta.session_id), and those neighbours can be found through it (component `context`).
             * @default true
             */
            context: boolean;
            /**
             * Dates
             * @description Periods the query names ("in March 2023", "on 13 October 2023", "last week"): memories created in them also compete in their own right, beside the usual ranking (components `dated_dense_*`, `dated_keyword_*`; hybrid mode).
             * @default true
             */
            dates: boolean;
        };
        /** SearchOut */
        SearchOut: {
            /** Results */
            results: components["schemas"]["SearchHitOut"][];
        };
        /**
         * TopicNoteOut
         * @description A note recalled for the topic.
         */
        TopicNoteOut: {
            /** Id */
            id: string;
            /** Topic */
            topic: string[];
            /** Note */
            note: string;
            /**
             * Read Count
             * @description Reads before this one.
             */
            read_count: number;
            /** Updated At */
            updated_at: string;
            why: components["schemas"]["WhyOut"];
        };
        /** TurnIn */
        TurnIn: {
            /** Text */
            text: string;
            /**
             * Speaker
             * @default user
             * @enum {string}
             */
            speaker: "user" | "agent";
            /** Task Outcome */
            task_outcome?: ("succeeded" | "failed") | null;
            /**
             * Conversation Ended
             * @default false
             */
            conversation_ended: boolean;
            /** Summary */
            summary?: string | null;
        };
        /**
         * UsageOut
         * @description What a tenant stores: what its memory quota is checked against.
         */
        UsageOut: {
            /** Tenant */
            tenant: string;
            /**
             * Memories
             * @description Memories stored, archived ones included (forgotten ones are not).
             */
            memories: number;
            /**
             * Bytes
             * @description UTF-8 bytes of their content.
             */
            bytes: number;
            quota: components["schemas"]["QuotaOut"];
            /**
             * As Of
             * @description Per log partition, the position up to which every event is counted: a write is in the answer once its partition's position reaches the write's.
             */
            as_of: components["schemas"]["UsagePositionOut"][];
        };
        /**
         * UsagePositionOut
         * @description How far one log partition is counted.
         */
        UsagePositionOut: {
            /** Partition */
            partition: number;
            /**
             * Position
             * @description Every event of the partition up to it is counted.
             */
            position: number;
        };
        /** WebhookCreated */
        WebhookCreated: {
            /** Id */
            id: string;
            /** Url */
            url: string;
            /** Scopes */
            scopes: string[];
            /** Kinds */
            kinds: ("written" | "state_changed" | "forgotten")[];
            /** Description */
            description: string;
            /** Created At */
            created_at: string;
            /**
             * Created By
             * @description The actor that created it (key:<id>).
             */
            created_by: string;
            /**
             * Status
             * @enum {string}
             */
            status: "active" | "paused";
            /** Paused Reason */
            paused_reason: string | null;
            /**
             * Cursor
             * @description The change-feed cursor after the last change the receiver acknowledged (GET /v1/changes?since=<cursor> lists what is still to deliver).
             */
            cursor: string;
            /**
             * Positions
             * @description The cursor as log positions.
             */
            positions: components["schemas"]["WebhookPosition"][];
            /**
             * Delivered
             * @description Changes acknowledged so far.
             */
            delivered: number;
            /**
             * Failures
             * @description Consecutive failed attempts (0 after a success).
             */
            failures: number;
            /** Failing Since */
            failing_since: string | null;
            /** Last Attempt At */
            last_attempt_at: string | null;
            /** Last Success At */
            last_success_at: string | null;
            /**
             * Last Status
             * @description HTTP status of the last attempt (null: none).
             */
            last_status: number | null;
            /** Last Error */
            last_error: string | null;
            /**
             * Secret
             * @description Signs every delivery (X-AIMemory-Signature). Shown only in this answer.
             */
            secret: string;
        };
        /** WebhookIn */
        WebhookIn: {
            /**
             * Url
             * @description Where deliveries are POSTed: http or https, no credentials; its host must resolve to public addresses only, unless the deployment allows others.
             */
            url: string;
            /**
             * Scopes
             * @description The scopes to follow (1-16), or ["*"] for every scope of the tenant.
             */
            scopes: string[];
            /**
             * Kinds
             * @description Which changes to deliver (default: all three kinds).
             */
            kinds?: ("written" | "state_changed" | "forgotten")[] | null;
            /**
             * Description
             * @description Free text for people (≤ 500 chars).
             * @default
             */
            description: string;
        };
        /** WebhookList */
        WebhookList: {
            /** Webhooks */
            webhooks: components["schemas"]["WebhookOut"][];
        };
        /**
         * WebhookOut
         * @description A subscription and its delivery state — never its secret.
         */
        WebhookOut: {
            /** Id */
            id: string;
            /** Url */
            url: string;
            /** Scopes */
            scopes: string[];
            /** Kinds */
            kinds: ("written" | "state_changed" | "forgotten")[];
            /** Description */
            description: string;
            /** Created At */
            created_at: string;
            /**
             * Created By
             * @description The actor that created it (key:<id>).
             */
            created_by: string;
            /**
             * Status
             * @enum {string}
             */
            status: "active" | "paused";
            /** Paused Reason */
            paused_reason: string | null;
            /**
             * Cursor
             * @description The change-feed cursor after the last change the receiver acknowledged (GET /v1/changes?since=<cursor> lists what is still to deliver).
             */
            cursor: string;
            /**
             * Positions
             * @description The cursor as log positions.
             */
            positions: components["schemas"]["WebhookPosition"][];
            /**
             * Delivered
             * @description Changes acknowledged so far.
             */
            delivered: number;
            /**
             * Failures
             * @description Consecutive failed attempts (0 after a success).
             */
            failures: number;
            /** Failing Since */
            failing_since: string | null;
            /** Last Attempt At */
            last_attempt_at: string | null;
            /** Last Success At */
            last_success_at: string | null;
            /**
             * Last Status
             * @description HTTP status of the last attempt (null: none).
             */
            last_status: number | null;
            /** Last Error */
            last_error: string | null;
        };
        /** WebhookPosition */
        WebhookPosition: {
            /** Partition */
            partition: number;
            /** Position */
            position: number;
        };
        /**
         * WhyOut
         * @description Why a note was returned: its tier, what matched, the reads used to rank it.
         */
        WhyOut: {
            /**
             * Tier
             * @description 1: a tag equals a query word; 2: a tag or the body contains one.
             */
            tier: number;
            /**
             * Match
             * @enum {string}
             */
            match: "exact_tag" | "contains";
            /**
             * Words
             * @description Query words that matched.
             */
            words: string[];
            /**
             * Tags
             * @description Tags of the note that matched.
             */
            tags: string[];
            /**
             * In Body
             * @description The note's text contains a matched word.
             */
            in_body: boolean;
            /**
             * Read Count
             * @description Reads before this one (the third ranking key).
             */
            read_count: number;
            /** Summary */
            summary: string;
        };
        /** WriteOut */
        WriteOut: {
            record: components["schemas"]["MemoryOut"];
            /**
             * Position
             * @description The write's position token (the tenant's own, opaque: docs/design/POSITIONS.md); pass it as min_position to read it.
             */
            position: number;
            /** Created */
            created: boolean;
            /**
             * Changed
             * @description False when the same content was already stored (no-op).
             */
            changed: boolean;
            /**
             * Redacted
             * @description Fields whose credentials were replaced by [REDACTED:<kind>] under the tenant's `redact` secret policy (e.g. content, meta.notes); null when none were.
             */
            redacted?: string[] | null;
        };
        /** WriteSuggestionOut */
        WriteSuggestionOut: {
            /**
             * Trigger
             * @description What fired: explicit_preference, task_closed, …
             */
            trigger: string;
            /**
             * Type
             * @description The memory type to write.
             */
            type: string;
            /**
             * Content
             * @description null: the agent composes it (task, summary).
             */
            content: string | null;
            /** Reason */
            reason: string;
            /** Importance */
            importance: number;
        };
        /**
         * WriteTriggersOut
         * @description ``POST /v1/write-triggers``: advisory, nothing is written.
         */
        WriteTriggersOut: {
            /** Suggestions */
            suggestions: components["schemas"]["WriteSuggestionOut"][];
        };
        /**
         * YourTopicOut
         * @description One of the agent's topics with its read count.
         */
        YourTopicOut: {
            /** Id */
            id: string;
            /** Topic */
            topic: string[];
            /** Read Count */
            read_count: number;
        };
        /**
         * Problem
         * @description RFC 9457 problem details with a stable machine-readable code.
         */
        Problem: {
            type: string;
            title: string;
            status: number;
            /** @description Stable error code, e.g. invalid_input. */
            code: string;
            /** @description What went wrong and what to do. */
            detail: string;
            /** @description The input at fault. */
            field?: string | null;
            /** @description The rule it broke. */
            rule?: string | null;
            errors?: Record<string, unknown>[];
            /** @description Seconds to wait (also Retry-After). */
            retry_after?: number;
            /** @description 429: the exact wait, in ms. */
            retry_after_ms?: number;
            /** @description 429: whose rate, key or tenant. */
            limit?: string;
            /** @description Also the X-Request-Id header. */
            request_id?: string;
        };
        /**
         * BundleLine
         * @description One line of an ai-memory.bundle v1: a header first, then record and tombstone lines, a trailer last (counts and the SHA-256 of the lines before it). The full JSON Schema of a line is schemas/bundle/bundle-line.v1.schema.json.
         */
        BundleLine: {
            /** @enum {string} */
            kind: "header" | "record" | "tombstone" | "trailer";
        } & {
            [key: string]: unknown;
        };
        /**
         * ChangeTrailer
         * @description The last line of a change-feed page: continue with since=next.
         */
        ChangeTrailer: {
            /** @description The cursor to continue after. */
            next: string | null;
            /** @description True: read again at once. */
            more: boolean;
        };
        /**
         * ChangeOut
         * @description What changed about one memory — never its content.
         */
        ChangeOut: {
            /**
             * Cursor
             * @description Resume here (since=, or SSE Last-Event-ID) for what follows.
             */
            cursor: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "written" | "state_changed" | "forgotten";
            /**
             * Id
             * @description The memory's id.
             */
            id: string;
            /** Scope */
            scope: string;
            /**
             * Version
             * @description written: the new version; forgotten: the last one; state_changed: null.
             */
            version: number | null;
            /**
             * State
             * @description The state after the change; null when forgotten.
             */
            state: string | null;
            /**
             * At
             * @description When it happened (ISO 8601).
             */
            at: string;
            /**
             * Actor
             * @description Who caused it: the API key (key:<id>) or a component.
             */
            actor: string;
            /**
             * Position
             * @description The change's log position: a read with min_position=position sees it.
             */
            position: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listMemories: {
        parameters: {
            query?: {
                /** @description Only these scopes (repeatable). Without it: every scope the key may read. */
                scope?: string[] | null;
                /** @description Only these types (repeatable). */
                type?: string[] | null;
                /** @description Only these states (repeatable); default active. */
                state?: string[] | null;
                /** @description Only with this tag. */
                tag?: string | null;
                /** @description `next_cursor` of the previous page. */
                cursor?: string | null;
                /** @description Items per page, 1..1000 (default 50). */
                limit?: number;
                /** @description Wait until projections reach the write this position token names. */
                min_position?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryListOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description scope_forbidden / scope_required (a wildcard key); role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A bad parameter; `field` names it (e.g. cursor) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createMemory: {
        parameters: {
            query?: {
                /** @description Return only after every projection applied the write. */
                wait?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "preference",
                 *       "content": "Alice prefers oolong tea, never coffee.",
                 *       "scope": "user:alice",
                 *       "source_agent": "planner",
                 *       "tags": [
                 *         "drinks"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["MemoryIn"];
            };
        };
        responses: {
            /** @description Unchanged or updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "record": {
                     *         "id": "pref-tea",
                     *         "type": "preference",
                     *         "content": "Alice prefers oolong tea, never coffee.",
                     *         "scope": "user:alice",
                     *         "source_agent": "planner",
                     *         "created_at": "2026-01-05T09:30:00Z",
                     *         "ttl": null,
                     *         "tags": [
                     *           "drinks"
                     *         ],
                     *         "meta": {},
                     *         "schema_version": 1,
                     *         "version": 1,
                     *         "state": "active",
                     *         "updated_at": null,
                     *         "read_count": null
                     *       },
                     *       "position": 42,
                     *       "created": true,
                     *       "changed": true
                     *     }
                     */
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description quota_exceeded: the tenant stores as many memories as it may; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description scope_immutable: the id belongs to another scope */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description memory_forgotten: forgotten ids are never reused */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getMemory: {
        parameters: {
            query?: {
                /** @description Wait until projections reach the write this position token names first (a `position` a write of the caller's tenant returned; any other value is refused at once). */
                min_position?: number;
            };
            header?: never;
            path: {
                /** @description The memory's id. */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memory */
            200: {
                headers: {
                    /** @description The memory's version as a strong entity tag ("3"): send it as If-Match. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "pref-tea",
                     *       "type": "preference",
                     *       "content": "Alice prefers oolong tea, never coffee.",
                     *       "scope": "user:alice",
                     *       "source_agent": "planner",
                     *       "created_at": "2026-01-05T09:30:00Z",
                     *       "ttl": null,
                     *       "tags": [
                     *         "drinks"
                     *       ],
                     *       "meta": {},
                     *       "schema_version": 1,
                     *       "version": 1,
                     *       "state": "active",
                     *       "updated_at": null,
                     *       "read_count": null
                     *     }
                     */
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Never existed */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forgotten */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    upsertMemory: {
        parameters: {
            query?: {
                /** @description Return only after every projection applied the write. */
                wait?: boolean;
            };
            header?: {
                /** @description Only if the memory is at one of these versions (an ETag such as "3"), or exists at all (*); otherwise 412 precondition_failed, nothing written. */
                "if-match"?: string | null;
                /** @description * : create only; 412 precondition_failed if the memory exists. */
                "if-none-match"?: string | null;
            };
            path: {
                /** @description The memory's id. */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "preference",
                 *       "content": "Alice prefers oolong tea, never coffee.",
                 *       "scope": "user:alice",
                 *       "source_agent": "planner",
                 *       "tags": [
                 *         "drinks"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["MemoryIn"];
            };
        };
        responses: {
            /** @description Unchanged or updated */
            200: {
                headers: {
                    /** @description The memory's version as a strong entity tag ("3"): send it as If-Match. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "record": {
                     *         "id": "pref-tea",
                     *         "type": "preference",
                     *         "content": "Alice prefers oolong tea, never coffee.",
                     *         "scope": "user:alice",
                     *         "source_agent": "planner",
                     *         "created_at": "2026-01-05T09:30:00Z",
                     *         "ttl": null,
                     *         "tags": [
                     *           "drinks"
                     *         ],
                     *         "meta": {},
                     *         "schema_version": 1,
                     *         "version": 1,
                     *         "state": "active",
                     *         "updated_at": null,
                     *         "read_count": null
                     *       },
                     *       "position": 42,
                     *       "created": false,
                     *       "changed": false
                     *     }
                     */
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    /** @description The memory's version as a strong entity tag ("3"): send it as If-Match. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "record": {
                     *         "id": "pref-tea",
                     *         "type": "preference",
                     *         "content": "Alice prefers oolong tea, never coffee.",
                     *         "scope": "user:alice",
                     *         "source_agent": "planner",
                     *         "created_at": "2026-01-05T09:30:00Z",
                     *         "ttl": null,
                     *         "tags": [
                     *           "drinks"
                     *         ],
                     *         "meta": {},
                     *         "schema_version": 1,
                     *         "version": 1,
                     *         "state": "active",
                     *         "updated_at": null,
                     *         "read_count": null
                     *       },
                     *       "position": 42,
                     *       "created": true,
                     *       "changed": true
                     *     }
                     */
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description quota_exceeded: the tenant stores as many memories as it may; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description scope_immutable: the id belongs to another scope */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description memory_forgotten: forgotten ids are never reused */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description precondition_failed: If-Match / If-None-Match */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteMemory: {
        parameters: {
            query?: {
                /** @description Return only after every projection applied the write. */
                wait?: boolean;
                /** @description Why it is forgotten. */
                reason?: string;
            };
            header?: {
                /** @description Only if the memory is at one of these versions (an ETag such as "3"), or exists at all (*); otherwise 412 precondition_failed, nothing written. */
                "if-match"?: string | null;
            };
            path: {
                /** @description The memory's id. */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "pref-tea",
                     *       "position": 43,
                     *       "forgotten": true,
                     *       "already_forgotten": false
                     *     }
                     */
                    "application/json": components["schemas"]["DeleteOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description memory_not_found: never existed */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description precondition_failed: If-Match / If-None-Match */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    searchMemories: {
        parameters: {
            query?: {
                /** @description Wait until projections reach the write this position token names first (a `position` a write of the caller's tenant returned; any other value is refused at once). */
                min_position?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "what does alice drink",
                 *       "scope": "user:alice",
                 *       "top_k": 5
                 *     }
                 */
                "application/json": components["schemas"]["SearchIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "record": {
                     *             "id": "pref-tea",
                     *             "type": "preference",
                     *             "content": "Alice prefers oolong tea, never coffee.",
                     *             "scope": "user:alice",
                     *             "source_agent": "planner",
                     *             "created_at": "2026-01-05T09:30:00Z",
                     *             "ttl": null,
                     *             "tags": [
                     *               "drinks"
                     *             ],
                     *             "meta": {},
                     *             "schema_version": 1,
                     *             "version": 1,
                     *             "state": "active",
                     *             "updated_at": null,
                     *             "read_count": null
                     *           },
                     *           "score": 0.83,
                     *           "components": {
                     *             "semantic": 0.71,
                     *             "keyword": 0.52,
                     *             "recency": 0.98,
                     *             "importance": 0.8
                     *           },
                     *           "explanation": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["SearchOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    exportMemories: {
        parameters: {
            query?: {
                /** @description Only these scopes. */
                scope?: string[] | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An NDJSON bundle, streamed: one BundleLine per line. A key revoked mid-export cuts the body off before its trailer (a bundle without its trailer is incomplete). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "kind": "header",
                     *         "format": "ai-memory.bundle",
                     *         "format_version": 1,
                     *         "producer": "ai-memory/0.1.0",
                     *         "exported_at": "2026-03-12T09:30:00Z",
                     *         "filters": {
                     *           "scopes": [
                     *             "user:alice"
                     *           ],
                     *           "tenant": "default"
                     *         }
                     *       },
                     *       {
                     *         "kind": "record",
                     *         "record": {
                     *           "id": "pref-tea",
                     *           "type": "preference",
                     *           "content": "Alice prefers oolong tea, never coffee.",
                     *           "scope": "user:alice",
                     *           "source_agent": "planner",
                     *           "created_at": "2026-01-05T09:30:00Z",
                     *           "ttl": null,
                     *           "tags": [
                     *             "drinks"
                     *           ],
                     *           "meta": {},
                     *           "schema_version": 1
                     *         },
                     *         "state": "active",
                     *         "version": 1,
                     *         "updated_at": "2026-01-05T09:30:00Z"
                     *       },
                     *       {
                     *         "kind": "tombstone",
                     *         "id": "pref-coffee",
                     *         "scope": "user:alice",
                     *         "deleted_at": "2026-02-28T08:00:00Z",
                     *         "reason": "user_request"
                     *       },
                     *       {
                     *         "kind": "trailer",
                     *         "counts": {
                     *           "records": 1,
                     *           "tombstones": 1
                     *         },
                     *         "sha256": "3f5d188b238300986e462f91429c48c9aaf0b0905b257cecaa473196114e194a"
                     *       }
                     *     ]
                     */
                    "application/x-ndjson": components["schemas"]["BundleLine"][];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    importMemories: {
        parameters: {
            query?: {
                /** @description Return only after every projection applied the write. */
                wait?: boolean;
                /** @description Name of the import's source. */
                source?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description NDJSON: one JSON object per line — bundle lines (header, record, tombstone, trailer) or bare records. Each line is checked and committed on its own; a line over the line limit is rejected by number. */
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "type": "preference",
                 *         "content": "Alice prefers oolong tea, never coffee.",
                 *         "scope": "user:alice",
                 *         "source_agent": "planner",
                 *         "tags": [
                 *           "drinks"
                 *         ],
                 *         "id": "pref-tea"
                 *       },
                 *       {
                 *         "type": "fact",
                 *         "content": "Alice lives in Tokyo.",
                 *         "scope": "user:alice",
                 *         "source_agent": "planner",
                 *         "tags": [
                 *           "drinks"
                 *         ],
                 *         "id": "home"
                 *       }
                 *     ]
                 */
                "application/x-ndjson": components["schemas"]["MemoryIn"][];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "batch_id": "0f8c2d1e-5b7a-4c3e-9d2f-6a1b0c9e8d7f",
                     *       "received": 2,
                     *       "written": 2,
                     *       "unchanged": 0,
                     *       "skipped_tombstoned": 0,
                     *       "tombstones_applied": 0,
                     *       "rejected": 0,
                     *       "stale": 0,
                     *       "redacted": 0,
                     *       "states_applied": 0,
                     *       "errors": [],
                     *       "errors_truncated": false,
                     *       "position": 45
                     *     }
                     */
                    "application/json": components["schemas"]["ImportOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description line_too_long / body_too_large: the report of the lines before */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description unsupported_media_type: the body is not application/x-ndjson */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    batchUpsertMemories: {
        parameters: {
            query?: {
                /** @description Return only after every projection applied every item. */
                wait?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "items": [
                 *         {
                 *           "type": "preference",
                 *           "content": "Alice prefers oolong tea, never coffee.",
                 *           "scope": "user:alice",
                 *           "source_agent": "planner",
                 *           "tags": [
                 *             "drinks"
                 *           ],
                 *           "id": "pref-tea"
                 *         },
                 *         {
                 *           "type": "preference",
                 *           "content": "Alice prefers oolong tea, never coffee.",
                 *           "scope": "team:kitchen",
                 *           "source_agent": "planner",
                 *           "tags": [
                 *             "drinks"
                 *           ],
                 *           "id": "pref-coffee"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["BatchWriteIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "index": 0,
                     *           "status": 201,
                     *           "id": "pref-tea",
                     *           "version": 1,
                     *           "changed": true,
                     *           "position": 42
                     *         },
                     *         {
                     *           "index": 1,
                     *           "status": 409,
                     *           "id": "pref-coffee",
                     *           "problem": {
                     *             "type": "urn:ai-memory:problem:scope_immutable",
                     *             "title": "Conflict",
                     *             "status": 409,
                     *             "code": "scope_immutable",
                     *             "detail": "memory 'pref-coffee' belongs to scope 'user:alice'; a memory never moves between scopes (delete it and write a new one)"
                     *           }
                     *         }
                     *       ],
                     *       "written": 1,
                     *       "unchanged": 0,
                     *       "rejected": 1,
                     *       "position": 42
                     *     }
                     */
                    "application/json": components["schemas"]["BatchWriteOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key may not write at all; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is over AIMEM_MAX_BODY_BYTES */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not a batch: `items` missing, not an array, or over 1,000 */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    recallNotes: {
        parameters: {
            query: {
                /** @description Your agent id. */
                agent: string;
                /** @description Words or tags to recall, e.g. 'neo'. */
                topic?: string | null;
                /** @description Wait until projections reach the write this position token names (a `position` a write of the caller's tenant returned; any other value is refused at once). */
                min_position?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotesOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    saveNote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NoteIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NoteSaveOut"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NoteSaveOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 'off' for a topic that never had a note */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description note_quota_exceeded: the agent has reached its quota */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A limit was exceeded; `field` names it */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    recordInteraction: {
        parameters: {
            query?: {
                /** @description Return once every projection applied it. */
                wait?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InteractionIn"];
            };
        };
        responses: {
            /** @description Recorded */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InteractionOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    suggestWrites: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnIn"];
            };
        };
        responses: {
            /** @description Suggestions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WriteTriggersOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getPersona: {
        parameters: {
            query: {
                scope: string;
                /** @description Valid time, what was true then (UTC ISO-8601 or Unix time). */
                as_of?: string | null;
                /** @description Recorded time, what the system believed then (UTC ISO-8601 or Unix time). */
                known_at?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The persona */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listEpisodes: {
        parameters: {
            query: {
                scope: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The episodes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EpisodesOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runGovernor: {
        parameters: {
            query?: {
                /** @description Return once every projection applied it. */
                wait?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transitions made */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernorRunOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLineage: {
        parameters: {
            query?: {
                /** @description Valid time, what was true then (UTC ISO-8601 or Unix time). */
                as_of?: string | null;
                /** @description Recorded time, what the system believed then (UTC ISO-8601 or Unix time). */
                known_at?: string | null;
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lineage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LineageOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description memory_not_found: never existed */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Continue after this cursor (a previous page's next); from the start without it. */
                since?: string | null;
                /** @description Only this actor's events. */
                actor?: string | null;
                action?: ("written" | "forgotten" | "state_changed" | "recalled" | "imported" | "interaction_recorded" | "erased") | null;
                /** @description At most this many entries. */
                limit?: number;
                /** @description The tenant (operator keys must name it). */
                tenant?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description audit_unavailable: this server keeps no trail */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listChanges: {
        parameters: {
            query?: {
                /** @description Only these scopes (repeatable). Without it: every scope the key may read. */
                scope?: string[] | null;
                /** @description Continue after this cursor (an entry's cursor or a trailer's next); `now` for only what comes next; from the start without it. */
                since?: string | null;
                /** @description At most this many entries per page. */
                limit?: number;
                /** @description NDJSON: seconds to wait for a change when there is none (long-poll; default 0). SSE: seconds between heartbeats (default 15). */
                timeout?: number | null;
            };
            header?: {
                /** @description SSE resume: the id of the last event received (wins over since). */
                "last-event-id"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description NDJSON (the default): one ChangeOut per line, then a ChangeTrailer line. With Accept: text/event-stream, Server-Sent Events instead. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": (components["schemas"]["ChangeOut"] | components["schemas"]["ChangeTrailer"])[];
                    /**
                     * @example retry: 1000
                     *
                     *     id: YzF8MDoy
                     *     data: {"cursor": "YzF8MDoy", "kind": "written", "id": "m1", "scope": "user:alice", "version": 1, "state": "active", "at": "2026-01-05T09:30:00+00:00", "actor": "api", "position": 2}
                     *
                     *     : heartbeat
                     */
                    "text/event-stream": string;
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description scope_forbidden / scope_required (a wildcard key); role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description changes_unavailable: this server serves no change feed */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A bad parameter; `field` names it (since, limit, timeout, scope) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getReceiptPublicKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The public key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReceiptKeyOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description not_served: erasures are not served by this process */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createErasure: {
        parameters: {
            query?: {
                /** @description Return once every projection applied it. */
                wait?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ErasureIn"];
            };
        };
        responses: {
            /** @description This erasure id had already run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasureOut"];
                };
            };
            /** @description Erased */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasureOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description not_served: erasures are not served by this process */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getErasureReceipt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                erasure_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed receipt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReceiptOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description erasure_not_found; not_served: no erasures in this process */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteInteraction: {
        parameters: {
            query?: {
                /** @description Why it is erased. */
                reason?: string;
                /** @description Return once every projection applied it. */
                wait?: boolean;
            };
            header?: never;
            path: {
                interaction_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erased */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasureOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description interaction_not_found; not_served: no erasures here */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description The tenant (operator keys must name it). */
                tenant?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description not_served: this server does not serve usage */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden: not an admin key of the tenant; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreated"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden: not an admin key of the tenant; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description webhook_not_found (also for another tenant's webhook) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description webhook_quota: AIMEM_WEBHOOK_MAX_PER_TENANT reached */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A bad field (`url`: scheme, credentials, destination refused) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id (wh_ and 16 hex digits). */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden: not an admin key of the tenant; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description webhook_not_found (also for another tenant's webhook) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id (wh_ and 16 hex digits). */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden: not an admin key of the tenant; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description webhook_not_found (also for another tenant's webhook) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    resumeWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id (wh_ and 16 hex digits). */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookOut"];
                };
            };
            /** @description api_key_required / invalid_api_key: once API keys exist, a valid key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description role_forbidden: not an admin key of the tenant; role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a browser request from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description webhook_not_found (also for another tenant's webhook) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description rate_limited (key or tenant) / auth_failures (too many refused keys) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description projection_lag / a store not ready: retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ok or degraded */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthOut"];
                };
            };
            /** @description The request was refused */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed or is not ready */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
