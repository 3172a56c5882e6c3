// The retry policy, as the Python SDK's (ai_memory.sdk.retry): exponential backoff with
// full jitter, honouring Retry-After.
//
// Retried: 429 and 503 answers, and transport failures (no answer, timeout), only for
// idempotent requests — every request the client sends is, except a create without an
// id, an interaction, a conditional write (If-Match: a repeat would answer 412 for the
// caller's own write), a batch naming one memory twice, forgetting an interaction and an
// import from a one-shot stream. A non-idempotent request is retried only when the
// connection was never established (nothing was sent).
//
// Attempt n (0-based) waits uniform(0, min(backoffMax, backoffBase·2ⁿ)) s; with a
// Retry-After the wait is that many seconds (capped at retryAfterCap) plus up to 10 %
// jitter, so clients told to come back at the same moment do not all return at once.

export interface RetryOptions {
  /** Retries after the first attempt (0 disables retrying). Default 3. */
  maxRetries?: number;
  /** Seconds; default 0.25. */
  backoffBase?: number;
  /** Seconds; default 8. */
  backoffMax?: number;
  /** Seconds; the longest Retry-After honoured; default 30. */
  retryAfterCap?: number;
  /** Statuses retried; default 429 and 503. */
  retryStatuses?: readonly number[];
  /** Injectable for tests. */
  sleep?: (seconds: number) => Promise<void>;
  random?: () => number;
}

export class RetryPolicy {
  readonly maxRetries: number;
  readonly backoffBase: number;
  readonly backoffMax: number;
  readonly retryAfterCap: number;
  readonly retryStatuses: ReadonlySet<number>;
  readonly sleep: (seconds: number) => Promise<void>;
  private readonly random: () => number;

  constructor(options: RetryOptions = {}) {
    this.maxRetries = options.maxRetries ?? 3;
    this.backoffBase = options.backoffBase ?? 0.25;
    this.backoffMax = options.backoffMax ?? 8;
    this.retryAfterCap = options.retryAfterCap ?? 30;
    this.retryStatuses = new Set(options.retryStatuses ?? [429, 503]);
    this.sleep = options.sleep ?? ((s) => new Promise((done) => setTimeout(done, s * 1000)));
    this.random = options.random ?? Math.random;
    const numbers = [this.maxRetries, this.backoffBase, this.backoffMax, this.retryAfterCap];
    if (!Number.isInteger(this.maxRetries) || numbers.some((n) => !(n >= 0))) {
      throw new RangeError("retries: maxRetries must be an integer ≥ 0, the delays ≥ 0");
    }
  }

  static of(retries: number | RetryOptions | RetryPolicy | undefined): RetryPolicy {
    if (retries instanceof RetryPolicy) return retries;
    if (typeof retries === "number") return new RetryPolicy({ maxRetries: retries });
    return new RetryPolicy(retries);
  }

  /** Seconds to wait before retry number `attempt + 1`. */
  backoff(attempt: number, retryAfter?: number): number {
    if (retryAfter !== undefined) {
      const wait = Math.min(retryAfter, this.retryAfterCap);
      return wait + this.random() * wait * 0.1;
    }
    return this.random() * Math.min(this.backoffMax, this.backoffBase * 2 ** attempt);
  }

  /** The delay before retrying after an answer with `status`, or undefined. */
  afterResponse(status: number, retryAfter: number | undefined, attempt: number, idempotent: boolean): number | undefined {
    if (attempt >= this.maxRetries || !idempotent || !this.retryStatuses.has(status)) return undefined;
    return this.backoff(attempt, retryAfter);
  }

  /** The delay before retrying after a transport failure, or undefined. */
  afterError(notSent: boolean, attempt: number, idempotent: boolean): number | undefined {
    if (attempt >= this.maxRetries || (!idempotent && !notSent)) return undefined;
    return this.backoff(attempt);
  }
}
