// DOM helpers. Everything the API returns is put on the page as text (textContent),
// never as HTML: a memory's content is data, and it may be hostile.

import { ApiError } from "./api.js";

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Record<string, string | number | boolean | ((event: any) => void) | null | undefined>} Attrs
 */

/**
 * Make an element: attributes (on* names become listeners) and children (text or nodes).
 * @param {string} tag
 * @param {Attrs} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/**
 * A labelled form field: every input has a visible label.
 * @param {string} label
 * @param {HTMLElement} input
 * @param {string} [hint]
 */
export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return el("div", { class: "field" }, el("label", { for: id }, label), input, hint ? el("small", {}, hint) : null);
}

/**
 * A horizontal bar for a value in [0, max].
 * @param {string} name
 * @param {number} value
 * @param {number} [max]
 * @param {string} [text] what to print beside the bar (the value by default)
 */
export function bar(name, value, max = 1, text) {
  const share = max > 0 ? Math.max(0, Math.min(1, value / max)) : 0;
  const shown = text ?? (Number.isInteger(value) ? String(value) : value.toFixed(3));
  return el(
    "div",
    { class: "bar", role: "meter", "aria-label": name, "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": value },
    el("span", { class: "bar-name" }, name),
    el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: null, "data-share": share.toFixed(3) })),
    el("span", { class: "bar-value" }, shown),
  );
}

/**
 * Size the bars' fills (CSP forbids inline style attributes in markup; CSSOM is fine).
 * @param {ParentNode} root
 */
export function sizeBars(root) {
  for (const fill of root.querySelectorAll(".bar-fill")) {
    const share = Number(fill.getAttribute("data-share") ?? 0);
    /** @type {HTMLElement} */ (fill).style.width = `${(share * 100).toFixed(1)}%`;
  }
}

/**
 * A failure as the operator should read it (a 403 says what the key may not do).
 * @param {unknown} error
 */
export function explain(error) {
  if (error instanceof ApiError) {
    if (error.status === 401) return `Not signed in or the key was refused (${error.code || 401}). Sign in again.`;
    if (error.status === 403) return `This key may not do that: ${error.message}`;
    if (error.status === 404) return `Not found: ${error.message}`;
    return `${error.status} ${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * A status line (role=status, read out by screen readers).
 * @param {string} text
 * @param {"info" | "error" | "ok"} [kind]
 */
export function notice(text, kind = "info") {
  return el("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/**
 * A time as UTC text ("2026-01-02 03:04:05Z").
 * @param {string | null | undefined} iso
 */
export function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/**
 * Replace a container's children.
 * @param {Element} node
 * @param {...(Child | Child[])} children
 */
export function show(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  sizeBars(node);
}
