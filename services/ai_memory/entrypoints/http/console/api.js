// The console's only door to the server: the public HTTP API, with the key the operator
// typed in. The key lives in sessionStorage (this tab only, gone when it closes): never
// localStorage, never a cookie, never a URL. What goes into a URL is ids, scopes, states,
// types, tags and cursors; memory content and search queries only ever travel in bodies.

const KEY_SLOT = "aimem.console.key";
/** The event a 401 answer raises on window (app.js signs out on it). */
export const REFUSED_EVENT = "aimem:key-refused";

/** @returns {string | null} the key of this tab ("" in open development mode), if signed in */
export function storedKey() {
  return sessionStorage.getItem(KEY_SLOT);
}

/** @param {string} key */
export function keepKey(key) {
  sessionStorage.setItem(KEY_SLOT, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_SLOT);
}

/** An API refusal: the HTTP status and the problem+json `code` and `detail`. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} detail
   */
  constructor(status, code, detail) {
    super(detail || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/**
 * @typedef {Record<string, string | number | boolean | null | undefined | string[]>} Query
 * @typedef {{query?: Query, body?: unknown, signal?: AbortSignal, text?: boolean}} CallOptions
 */

/**
 * The URL of an API path, relative to the page (the gateway may sit below a prefix).
 * @param {string} path e.g. "v1/memories"
 * @param {Query} [query]
 */
export function apiUrl(path, query) {
  const url = new URL(path.replace(/^\//, ""), document.baseURI);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === "") continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  return url;
}

/**
 * Call the API; resolves to the parsed JSON (or the text), rejects with an ApiError.
 * @param {string} method
 * @param {string} path
 * @param {CallOptions} [options]
 * @returns {Promise<any>}
 */
export async function call(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  const key = storedKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  /** @type {RequestInit} */
  const init = {
    method,
    headers,
    cache: "no-store",
    credentials: "omit",
    referrerPolicy: "no-referrer",
    signal: options.signal,
  };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(apiUrl(path, options.query), init);
  const text = await response.text();
  if (!response.ok) {
    let code = "";
    let detail = text.slice(0, 300);
    try {
      const problem = JSON.parse(text);
      code = String(problem.code ?? "");
      detail = String(problem.detail ?? problem.title ?? detail);
    } catch {
      // not problem+json: keep the start of the text
    }
    // A key refused mid-session (revoked, expired) ends the session: the shell listens.
    if (response.status === 401) window.dispatchEvent(new CustomEvent(REFUSED_EVENT));
    throw new ApiError(response.status, code, detail);
  }
  if (options.text) return text;
  return text ? JSON.parse(text) : null;
}

/**
 * Read NDJSON lines (the change feed's long-poll answer).
 * @param {string} text
 * @returns {any[]}
 */
export function ndjson(text) {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}
