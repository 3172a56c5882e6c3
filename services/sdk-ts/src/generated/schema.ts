/**
 * Generated from the ai-memory OpenAPI document by openapi-typescript. Do not edit:
 * regenerate with `make sdk-ts-generate` (services/sdk-ts: `npm run generate`).
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Healthz */
        get: operations["healthz_healthz_get"];
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
         * Audit Trail
         * @description Who did what in the tenant, oldest first: position, time, actor, action,
         *     memory ids and scope of each event — never content. A page reads at most
         *     ``limit`` of the tenant's events; ``actor`` and ``action`` filter that page, so
         *     it may be short while ``more`` is true: continue with ``since=next``.
         */
        get: operations["audit_trail_v1_audit_get"];
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
        /** Changes */
        get: operations["changes_v1_changes_get"];
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
         * Episodes
         * @description L2: extracted memories grouped by the conversation they came from.
         */
        get: operations["episodes_v1_episodes_get"];
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
         * Erase
         * @description Forget everything of a subject — a scope, a source agent, memory ids or raw
         *     turns: memories, raw interactions, notes, episodes and persona — destroying their
         *     keys; returns the erasure id. The same ``erasure_id`` again is the same erasure.
         */
        post: operations["erase_v1_erasures_post"];
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
         * Public Key
         * @description The Ed25519 public key that verifies erasure receipts (``ai-memory
         *     verify-receipt``).
         */
        get: operations["public_key_v1_erasures_public_key_get"];
        put?: never;
        post?: never;
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
         * Receipt
         * @description The erasure's receipt, signed with the server's key: what was erased, the
         *     events, each projection's position, when the keys were destroyed, and a
         *     verification scan made now.
         */
        get: operations["receipt_v1_erasures__erasure_id__get"];
        put?: never;
        post?: never;
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
        /** Export */
        get: operations["export_v1_export_get"];
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
         * Run Governor
         * @description Run one governor pass now (TTL expiry, soft forgetting, slow-update takeovers).
         */
        post: operations["run_governor_v1_governance_run_post"];
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
        /** Import Bundle */
        post: operations["import_bundle_v1_import_post"];
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
         * Record Interaction
         * @description Keep a raw interaction (L0) and extract atomic memories (L1) from it; conflicts
         *     with current memories are resolved by the θ rule and every decision is an event.
         */
        post: operations["record_interaction_v1_interactions_post"];
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
         * Forget Interaction
         * @description Forget one raw turn: its data key is destroyed and every memory extracted from
         *     it is forgotten (an erasure of ``interaction_ids: [id]``; the receipt is its).
         */
        delete: operations["forget_interaction_v1_interactions__interaction_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Memories */
        get: operations["list_memories_v1_memories_get"];
        put?: never;
        /** Create Memory */
        post: operations["create_memory_v1_memories_post"];
        delete?: never;
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
        /** Search Memories */
        post: operations["search_memories_v1_memories_search_post"];
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
        /** Read Memory */
        get: operations["read_memory_v1_memories__memory_id__get"];
        /** Upsert Memory */
        put: operations["upsert_memory_v1_memories__memory_id__put"];
        post?: never;
        /** Forget Memory */
        delete: operations["forget_memory_v1_memories__memory_id__delete"];
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
         * Lineage
         * @description What this memory superseded, what superseded it, and the events and rules behind
         *     each state change (kept after forgetting; never content).
         */
        get: operations["lineage_v1_memories__memory_id__lineage_get"];
        put?: never;
        post?: never;
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
         * Write Batch
         * @description Upsert up to 1,000 memories: each item as ``PUT /v1/memories/{id}`` would
         *     (idempotent, versioned, never moving scope, never reusing a forgotten id), all
         *     decided together and appended to the log at once. One result per item, in order.
         */
        post: operations["write_batch_v1_memories_batch_post"];
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
        /** Recall Notes */
        get: operations["recall_notes_v1_notes_get"];
        /** Save Note */
        put: operations["save_note_v1_notes_put"];
        post?: never;
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
         * Persona
         * @description L3: the active preferences, goals, facts, skills and tasks of a scope — now, or
         *     as true at ``as_of`` and as known at ``known_at``.
         */
        get: operations["persona_v1_persona_get"];
        put?: never;
        post?: never;
        delete?: never;
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
         * Tenant Usage
         * @description What the tenant stores: its memories (archived ones included; what the memory
         *     quota counts), the UTF-8 bytes of their content, its quota, and up to which log
         *     position of each partition that is counted.
         */
        get: operations["tenant_usage_v1_usage_get"];
        put?: never;
        post?: never;
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
         * Write Triggers
         * @description Whether and what to write for a conversation turn (core/governance/triggers): an explicit
         *     preference, a task closed, a problem solved (→ skill), a user correction, or the
         *     conversation summary. Advisory: nothing is written.
         */
        post: operations["write_triggers_v1_write_triggers_post"];
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
             * Action
             * @enum {string}
             */
            action: "written" | "forgotten" | "state_changed" | "recalled" | "imported" | "interaction_recorded" | "erased";
            /**
             * Actor
             * @description Who caused it: the API key (key:<id>) or a component.
             */
            actor: string;
            /**
             * Memory Ids
             * @description The memories it concerns (may be empty).
             */
            memory_ids: string[];
            /**
             * Position
             * @description The event's log position.
             */
            position: number;
            /**
             * Scope
             * @description The memories' scope; null for an import batch.
             */
            scope: string | null;
            /**
             * Time
             * @description When the event was recorded (ISO 8601).
             */
            time: string;
        };
        /**
         * AuditOut
         * @description A page of the tenant's audit trail, oldest first.
         */
        AuditOut: {
            /** Entries */
            entries: components["schemas"]["AuditEntryOut"][];
            /**
             * More
             * @description Whether more events may follow next right now.
             */
            more: boolean;
            /**
             * Next
             * @description Cursor of what this page consumed: pass it as since.
             */
            next: string;
            /** Tenant */
            tenant: string;
        };
        /** BatchItemOut */
        BatchItemOut: {
            /**
             * Changed
             * @description False when the same content was stored.
             */
            changed?: boolean | null;
            /** Id */
            id?: string | null;
            /**
             * Index
             * @description The item's position in `items`, from 0.
             */
            index: number;
            /**
             * Position
             * @description Log position of the item's write.
             */
            position?: number | null;
            problem?: components["schemas"]["ItemProblemOut"] | null;
            /**
             * Redacted
             * @description Fields whose credentials were redacted (`redact` secret policy).
             */
            redacted?: string[] | null;
            /**
             * Status
             * @description 201 created, 200 updated or unchanged, 4xx refused (see `problem`).
             */
            status: number;
            /** Version */
            version?: number | null;
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
             * Position
             * @description The highest position of the batch's items (0: none). On the embedded log, min_position for reading every one of them; on a partitioned log (Kafka) positions of different partitions are not ordered: use each item's position.
             */
            position: number;
            /** Rejected */
            rejected: number;
            /**
             * Results
             * @description One per item, in input order.
             */
            results: components["schemas"]["BatchItemOut"][];
            /** Unchanged */
            unchanged: number;
            /** Written */
            written: number;
        };
        /** DeleteOut */
        DeleteOut: {
            /** Already Forgotten */
            already_forgotten: boolean;
            /**
             * Forgotten
             * @default true
             */
            forgotten: boolean;
            /** Id */
            id: string;
            /** Position */
            position: number;
        };
        /** ErasureIn */
        ErasureIn: {
            /**
             * Erasure Id
             * @description Make a retry the same erasure (1-128 of A-Z a-z 0-9 . _ : -).
             */
            erasure_id?: string | null;
            /**
             * Everything
             * @description Erase everything of the tenant (offboarding): every memory and turn.
             */
            everything?: boolean | null;
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
             * Reason
             * @description Why: recorded on the log and in the receipt.
             */
            reason: string;
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
        };
        /** ImportError_ */
        ImportError_: {
            /** Code */
            code: string;
            /** Field */
            field?: string | null;
            /** Line */
            line: number;
            /** Message */
            message: string;
        };
        /** ImportOut */
        ImportOut: {
            /** Batch Id */
            batch_id: string;
            /** Errors */
            errors: components["schemas"]["ImportError_"][];
            /** Errors Truncated */
            errors_truncated: boolean;
            /** Position */
            position: number;
            /** Received */
            received: number;
            /**
             * Redacted
             * @default 0
             */
            redacted: number;
            /** Rejected */
            rejected: number;
            /** Skipped Tombstoned */
            skipped_tombstoned: number;
            /**
             * Stale
             * @default 0
             */
            stale: number;
            /**
             * States Applied
             * @default 0
             */
            states_applied: number;
            /** Tombstones Applied */
            tombstones_applied: number;
            /** Unchanged */
            unchanged: number;
            /** Written */
            written: number;
        };
        /** InteractionIn */
        InteractionIn: {
            /**
             * At
             * @description When it was said; defaults to now.
             */
            at?: string | number | null;
            /**
             * Scope
             * @example user:alice
             */
            scope: string;
            /** Session Id */
            session_id?: string | null;
            /** Source Agent */
            source_agent: string;
            /**
             * Text
             * @description What was said, verbatim (English or Chinese rules built in).
             */
            text: string;
        };
        /**
         * ItemProblemOut
         * @description Why one item was refused: the problem the single-memory route would answer.
         */
        ItemProblemOut: {
            /** Code */
            code: string;
            /** Detail */
            detail: string;
            /** Field */
            field?: string | null;
            /** Rule */
            rule?: string | null;
            /** Status */
            status: number;
            /** Title */
            title: string;
            /** Type */
            type: string;
        };
        /** MemoryIn */
        MemoryIn: {
            /**
             * Content
             * @description Self-contained UTF-8 text (the source of truth), at most 16 KiB (AIMEM_MAX_CONTENT_BYTES) as UTF-8.
             */
            content: string;
            /**
             * Created At
             * @description ISO-8601 with offset or Z, naive ISO / 'YYYY-MM-DD HH:mm:ss' (UTC), or Unix seconds / milliseconds. Returned as UTC ISO-8601 with Z. Defaults to now (on upsert: the original creation time). Years 1–9999 after the offset.
             */
            created_at?: string | number | null;
            /**
             * Id
             * @description Stable id; a UUID is generated when absent.
             */
            id?: string | null;
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
            /** Tags */
            tags?: string[] | null;
            /**
             * Ttl
             * @description Seconds until the memory expires (at most 100 years, and the expiry must fall before year 10000).
             */
            ttl?: number | null;
            type: components["schemas"]["MemoryType"];
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
            /** Content */
            content: string;
            /** Created At */
            created_at: string;
            /** Id */
            id: string;
            /** Meta */
            meta: {
                [key: string]: unknown;
            };
            /** Read Count */
            read_count?: number | null;
            /** Schema Version */
            schema_version: number;
            /** Scope */
            scope: string;
            /** Source Agent */
            source_agent: string;
            state: components["schemas"]["MemoryState"];
            /** Tags */
            tags: string[];
            /** Ttl */
            ttl: number | null;
            type: components["schemas"]["MemoryType"];
            /** Updated At */
            updated_at?: string | null;
            /** Version */
            version: number;
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
             * Note
             * @description At most 500 characters. 'off' deletes the note on this topic.
             * @example neo asked about X; I owe a plain answer
             */
            note: string;
            /**
             * Topic
             * @description Up to 5 tags in any language, split on commas or spaces, e.g. 'neo, jobs'. Case-insensitive; the same tag set is the same topic.
             * @example neo, jobs
             */
            topic: string | string[];
            /** @description Memory type; defaults to 'fact'. */
            type?: components["schemas"]["MemoryType"] | null;
        };
        /**
         * NoteSaveOut
         * @description What a save did.
         */
        NoteSaveOut: {
            /** Agent */
            agent: string;
            /**
             * Id
             * @description The memory id of the note (readable at /v1/memories/{id}).
             */
            id: string;
            /** Notes Used */
            notes_used: number;
            /**
             * Position
             * @description Log position of the change (0 when nothing changed).
             */
            position: number;
            /** Quota */
            quota: number;
            /**
             * Redacted
             * @description note / topic when their credentials were redacted (secret policy).
             */
            redacted?: string[] | null;
            /**
             * Status
             * @enum {string}
             */
            status: "created" | "replaced" | "unchanged" | "deleted" | "already_off";
            /**
             * Topic
             * @description The normalised tags of the topic.
             */
            topic: string[];
            /**
             * Version
             * @description Memory version; null when deleted.
             */
            version: number | null;
        };
        /**
         * NotesOut
         * @description The notes recalled for a topic and every topic of the agent.
         */
        NotesOut: {
            /** Agent */
            agent: string;
            /** Notes Used */
            notes_used: number;
            /** Quota */
            quota: number;
            /**
             * Recall Position
             * @description Log position of the read recorded for topic_notes; null if none.
             */
            recall_position: number | null;
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
        };
        /**
         * Problem
         * @description RFC 9457 problem details with a stable machine-readable code.
         */
        Problem: {
            /** @description Stable error code, e.g. invalid_input. */
            code: string;
            /** @description What went wrong and what to do. */
            detail: string;
            errors?: Record<string, unknown>[];
            /** @description The input at fault. */
            field?: string | null;
            /** @description 429: whose rate, key or tenant. */
            limit?: string;
            /** @description Also the X-Request-Id header. */
            request_id?: string;
            /** @description Seconds to wait (also Retry-After). */
            retry_after?: number;
            /** @description 429: the exact wait, in ms. */
            retry_after_ms?: number;
            /** @description The rule it broke. */
            rule?: string | null;
            status: number;
            title: string;
            type: string;
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
        /** SearchHitOut */
        SearchHitOut: {
            /**
             * Components
             * @description Each retriever's rank and score; `context`: what neighbouring turns added.
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
            record: components["schemas"]["MemoryOut"];
            /** Score */
            score: number;
        };
        /** SearchIn */
        SearchIn: {
            /**
             * As Of
             * @description Valid time, what was true then (ISO-8601 or Unix time): each memory is judged inside its validity window, from its created_at (or its import's valid_at) to the valid time of what superseded it.
             */
            as_of?: string | number | null;
            /**
             * Context
             * @description Conversation context: an interaction also scores by the interactions just before and after it in its scope and session (meta.session_id), and those neighbours can be found through it (component `context`).
             * @default true
             */
            context: boolean;
            /**
             * Known At
             * @description Recorded time, what the system believed then (ISO-8601 or Unix time): only what the log held at this time counts.
             */
            known_at?: string | number | null;
            /**
             * Mode
             * @default hybrid
             * @enum {string}
             */
            mode: "hybrid" | "semantic" | "keyword";
            /**
             * Query
             * @description What to look for (at most AIMEM_MAX_QUERY_CHARS characters).
             */
            query: string;
            /**
             * Rerank
             * @description Two-stage retrieval: recall K candidates by hybrid search, then rank by relevance 0.6 + recency 0.25 + type priority 0.15 (configurable), with explanations.
             * @default true
             */
            rerank: boolean;
            /** Scope */
            scope?: string | null;
            /**
             * States
             * @description Lifecycle states to include (default: only active memories).
             */
            states?: components["schemas"]["MemoryState"][] | null;
            /**
             * Tags
             * @description Match memories with any of these tags.
             */
            tags?: string[] | null;
            /**
             * Top K
             * @default 10
             */
            top_k: number;
            /** Types */
            types?: components["schemas"]["MemoryType"][] | null;
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
            /** Note */
            note: string;
            /**
             * Read Count
             * @description Reads before this one.
             */
            read_count: number;
            /** Topic */
            topic: string[];
            /** Updated At */
            updated_at: string;
            why: components["schemas"]["WhyOut"];
        };
        /** TurnIn */
        TurnIn: {
            /**
             * Conversation Ended
             * @default false
             */
            conversation_ended: boolean;
            /**
             * Speaker
             * @default user
             * @enum {string}
             */
            speaker: "user" | "agent";
            /** Summary */
            summary?: string | null;
            /** Task Outcome */
            task_outcome?: ("succeeded" | "failed") | null;
            /** Text */
            text: string;
        };
        /**
         * UsageOut
         * @description What a tenant stores: what its memory quota is checked against.
         */
        UsageOut: {
            /**
             * As Of
             * @description Per log partition, the position up to which every event is counted: a write is in the answer once its partition's position reaches the write's.
             */
            as_of: components["schemas"]["UsagePositionOut"][];
            /**
             * Bytes
             * @description UTF-8 bytes of their content.
             */
            bytes: number;
            /**
             * Memories
             * @description Memories stored, archived ones included (forgotten ones are not).
             */
            memories: number;
            quota: components["schemas"]["QuotaOut"];
            /** Tenant */
            tenant: string;
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
        /**
         * WhyOut
         * @description Why a note was returned: its tier, what matched, the reads used to rank it.
         */
        WhyOut: {
            /**
             * In Body
             * @description The note's text contains a matched word.
             */
            in_body: boolean;
            /**
             * Match
             * @enum {string}
             */
            match: "exact_tag" | "contains";
            /**
             * Read Count
             * @description Reads before this one (the third ranking key).
             */
            read_count: number;
            /** Summary */
            summary: string;
            /**
             * Tags
             * @description Tags of the note that matched.
             */
            tags: string[];
            /**
             * Tier
             * @description 1: a tag equals a query word; 2: a tag or the body contains one.
             */
            tier: number;
            /**
             * Words
             * @description Query words that matched.
             */
            words: string[];
        };
        /** WriteOut */
        WriteOut: {
            /**
             * Changed
             * @description False when the same content was already stored (no-op).
             */
            changed: boolean;
            /** Created */
            created: boolean;
            /**
             * Position
             * @description Log position of the write; pass as min_position to read it.
             */
            position: number;
            record: components["schemas"]["MemoryOut"];
            /**
             * Redacted
             * @description Fields whose credentials were replaced by [REDACTED:<kind>] under the tenant's `redact` secret policy (e.g. content, meta.notes); null when none were.
             */
            redacted?: string[] | null;
        };
        /**
         * YourTopicOut
         * @description One of the agent's topics with its read count.
         */
        YourTopicOut: {
            /** Id */
            id: string;
            /** Read Count */
            read_count: number;
            /** Topic */
            topic: string[];
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
    healthz_healthz_get: {
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
                    "application/json": {
                        [key: string]: unknown;
                    };
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
    audit_trail_v1_audit_get: {
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
            /** @description Validation Error */
            422: {
                headers: {
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
    changes_v1_changes_get: {
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
            /** @description NDJSON: entries then a trailer {next, more}; or an SSE stream (Accept: text/event-stream) whose event ids are cursors. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": unknown;
                    "text/event-stream": unknown;
                };
            };
            /** @description scope_forbidden / scope_required (a wildcard key) */
            403: {
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
    episodes_v1_episodes_get: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    erase_v1_erasures_post: {
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
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    public_key_v1_erasures_public_key_get: {
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
                    "application/json": unknown;
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
    receipt_v1_erasures__erasure_id__get: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    export_v1_export_get: {
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
            /** @description NDJSON bundle */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": unknown;
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
    run_governor_v1_governance_run_post: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    import_bundle_v1_import_post: {
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
                    "application/json": components["schemas"]["ImportOut"];
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
    record_interaction_v1_interactions_post: {
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
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    forget_interaction_v1_interactions__interaction_id__delete: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    list_memories_v1_memories_get: {
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
                /** @description Wait until projections reach this position. */
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
            /** @description scope_forbidden / scope_required (a wildcard key) */
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
    create_memory_v1_memories_post: {
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
                    "application/json": components["schemas"]["WriteOut"];
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
    search_memories_v1_memories_search_post: {
        parameters: {
            query?: {
                /** @description Wait until projections reach this log position first (a position a write returned; one beyond the log head is refused at once). */
                min_position?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
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
                    "application/json": components["schemas"]["SearchOut"];
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
    read_memory_v1_memories__memory_id__get: {
        parameters: {
            query?: {
                /** @description Wait until projections reach this log position first (a position a write returned; one beyond the log head is refused at once). */
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
                    "application/json": components["schemas"]["MemoryOut"];
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
    upsert_memory_v1_memories__memory_id__put: {
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
                    "application/json": components["schemas"]["WriteOut"];
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
    forget_memory_v1_memories__memory_id__delete: {
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
                    "application/json": components["schemas"]["DeleteOut"];
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
    lineage_v1_memories__memory_id__lineage_get: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    write_batch_v1_memories_batch_post: {
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
                    "application/json": components["schemas"]["BatchWriteOut"];
                };
            };
            /** @description The API key may not write at all */
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
    recall_notes_v1_notes_get: {
        parameters: {
            query: {
                /** @description Your agent id. */
                agent: string;
                /** @description Words or tags to recall, e.g. 'neo'. */
                topic?: string | null;
                /** @description Wait until projections reach this log position (one beyond the log head is refused at once). */
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
            /** @description Validation Error */
            422: {
                headers: {
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
    save_note_v1_notes_put: {
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
            /** @description A limit was exceeded; `field` names it */
            422: {
                headers: {
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
    persona_v1_persona_get: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
    tenant_usage_v1_usage_get: {
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
            /** @description Validation Error */
            422: {
                headers: {
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
    write_triggers_v1_write_triggers_post: {
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
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
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
