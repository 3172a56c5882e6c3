// Typed errors: every application/problem+json answer becomes an exception of the class
// its status names, the same classes and codes as the Python SDK (ai_memory.sdk.errors):
//
//   AiMemoryError
//   └── ApiError                          status, code, detail, field, rule, retryAfter, requestId
//       ├── InvalidInputError  (400/413/415/422)
//       ├── NotFoundError      (404)      memory_not_found, …
//       ├── GoneError          (410)      memory_forgotten
//       ├── ConflictError      (409)      scope_immutable, …
//       │   └── PreconditionFailedError (412)  If-Match / If-None-Match
//       ├── UnauthenticatedError (401)    invalid_api_key, api_key_required
//       ├── ForbiddenError     (403)      role_forbidden, scope_forbidden, tenant_forbidden, …
//       ├── RateLimitedError   (429)
//       ├── UnavailableError   (503)
//       │   └── WaitTimeoutError (503 projection_lag: the write happened, the wait gave up)
//       ├── ConnectionFailedError (no answer: connect failure or timeout)
//       └── ServerError        (any other status, or an answer the SDK cannot read)

/** The problem+json body of a failed answer (RFC 9457 plus the API's own members). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  code?: string;
  detail?: string;
  field?: string | null;
  rule?: string | null;
  retry_after?: number;
  request_id?: string;
  [member: string]: unknown;
}

export class AiMemoryError extends Error {
  /** The stable machine-readable code. */
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

export interface ApiErrorInit {
  status?: number | undefined;
  code?: string | undefined;
  field?: string | undefined;
  rule?: string | undefined;
  retryAfter?: number | undefined;
  requestId?: string | undefined;
  problem?: Problem | undefined;
  cause?: unknown;
}

/** A request the server refused or could not answer. `status` is undefined when no answer
 * arrived; `field`/`rule` name the offending input of a validation error ("" otherwise);
 * `retryAfter` is the server's hint in seconds (0 when none); `problem` the whole body. */
export class ApiError extends AiMemoryError {
  static readonly defaultCode: string = "server_error";
  readonly status: number | undefined;
  readonly detail: string;
  readonly field: string;
  readonly rule: string;
  readonly retryAfter: number;
  readonly requestId: string;
  readonly problem: Problem;

  constructor(detail: string, init: ApiErrorInit = {}) {
    const code = init.code ?? (new.target as typeof ApiError).defaultCode;
    const where = init.field ? ` [${init.field}]` : "";
    super(`${init.status ?? "-"} ${code}${where}: ${detail}`, code);
    if (init.cause !== undefined) this.cause = init.cause;
    this.status = init.status;
    this.detail = detail;
    this.field = init.field ?? "";
    this.rule = init.rule ?? "";
    this.retryAfter = init.retryAfter ?? 0;
    this.requestId = init.requestId ?? "";
    this.problem = init.problem ?? {};
  }
}

export class InvalidInputError extends ApiError {
  static override readonly defaultCode: string = "invalid_input";
}
export class NotFoundError extends ApiError {
  static override readonly defaultCode: string = "not_found";
}
export class GoneError extends ApiError {
  static override readonly defaultCode: string = "gone";
}
export class ConflictError extends ApiError {
  static override readonly defaultCode: string = "conflict";
}
export class PreconditionFailedError extends ConflictError {
  static override readonly defaultCode: string = "precondition_failed";
}
export class UnauthenticatedError extends ApiError {
  static override readonly defaultCode: string = "invalid_api_key";
}
export class ForbiddenError extends ApiError {
  static override readonly defaultCode: string = "forbidden";
}
export class RateLimitedError extends ApiError {
  static override readonly defaultCode: string = "rate_limited";
}
export class UnavailableError extends ApiError {
  static override readonly defaultCode: string = "unavailable";
}
export class WaitTimeoutError extends UnavailableError {
  static override readonly defaultCode: string = "projection_lag";
}
export class ConnectionFailedError extends ApiError {
  static override readonly defaultCode: string = "connection_failed";
}
export class ServerError extends ApiError {
  static override readonly defaultCode: string = "server_error";
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: InvalidInputError,
  401: UnauthenticatedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  412: PreconditionFailedError,
  413: InvalidInputError,
  415: InvalidInputError,
  422: InvalidInputError,
  429: RateLimitedError,
  503: UnavailableError,
};

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, (when - now) / 1000);
}

function asProblem(body: unknown): Problem {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Problem) : {};
}

/** The typed error of a failed answer whose body was already read (`body`: the parsed
 * JSON, or the text when it was not JSON). */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  const status = response.status;
  const problem = asProblem(body);
  let cls = BY_STATUS[status] ?? ServerError;
  const code = typeof problem.code === "string" && problem.code ? problem.code : cls.defaultCode;
  if (status === 503 && code === "projection_lag") cls = WaitTimeoutError;
  const detail =
    typeof problem.detail === "string" && problem.detail
      ? problem.detail
      : response.statusText || `HTTP ${status}`;
  let retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  if (retryAfter === undefined && typeof problem.retry_after === "number") retryAfter = problem.retry_after;
  const requestId =
    typeof problem.request_id === "string" ? problem.request_id : (response.headers.get("x-request-id") ?? "");
  return new cls(detail, {
    status,
    code,
    field: typeof problem.field === "string" ? problem.field : "",
    rule: typeof problem.rule === "string" ? problem.rule : "",
    retryAfter: retryAfter ?? 0,
    requestId,
    problem,
  });
}

/** A receipt that does not verify: malformed, signed by another key, or changed after it
 * was signed (or the public key is not an Ed25519 key). */
export class ReceiptInvalidError extends AiMemoryError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "receipt_invalid");
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
