// Sending one request: a per-attempt timeout and the retry policy. Every call of the
// client goes through `send`, the typed ones as openapi-fetch's `fetch`.
import { ConnectionFailedError, parseRetryAfter } from "./errors.js";
import type { RetryPolicy } from "./retry.js";

/** Connection failures after which nothing reached the server (safe to repeat anything). */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

function notSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === "string" && NOT_SENT.has(cause.code);
}

export interface SendOptions {
  /** Safe to repeat (see retry.ts). */
  idempotent: boolean;
  /** The body can be sent only once (a stream): never repeated. */
  oneShot?: boolean;
}

export class Transport {
  constructor(
    private readonly policy: RetryPolicy,
    private readonly timeoutMs: number | undefined,
    private readonly fetchImpl: typeof fetch = globalThis.fetch,
  ) {}

  /** Send `request`, retrying as the policy says. A failure status is returned, not
   * thrown (the caller reads its problem); no answer at all throws ConnectionFailedError.
   * `timeoutMs` bounds each attempt until the answer's headers arrive. */
  async send(request: Request, options: SendOptions): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const last = options.oneShot === true;
      const attemptRequest = last ? request : request.clone();
      const controller = new AbortController();
      const timer =
        this.timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(), this.timeoutMs);
      let delay: number | undefined;
      try {
        const response = await this.fetchImpl(attemptRequest, { signal: controller.signal });
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        delay = last ? undefined : this.policy.afterResponse(response.status, retryAfter, attempt, options.idempotent);
        if (delay === undefined) return response;
        await response.body?.cancel();
      } catch (error) {
        const timedOut = controller.signal.aborted;
        delay = last ? undefined : this.policy.afterError(!timedOut && notSent(error), attempt, options.idempotent);
        if (delay === undefined) {
          const why = timedOut ? `no answer within ${this.timeoutMs} ms` : String((error as Error)?.cause ?? error);
          throw new ConnectionFailedError(`${request.method} ${new URL(request.url).pathname}: ${why}`, {
            cause: error,
          });
        }
      } finally {
        clearTimeout(timer);
      }
      await this.policy.sleep(delay);
    }
  }
}
