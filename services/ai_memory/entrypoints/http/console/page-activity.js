// Activity: a scope's live change feed (NDJSON long-poll on GET /v1/changes: fetch can
// send the key, EventSource cannot) and the tenant's audit trail (GET /v1/audit).

import { call, ndjson } from "./api.js";
import { el, explain, field, notice, show, when } from "./ui.js";

const KEEP = 200; // feed entries kept on the page
const WAIT = 20; // seconds the server holds a long-poll open

/** @type {import("./app.js").Render} */
export function render({ main }) {
  let controller = new AbortController();
  const scope = el("input", { type: "text", placeholder: "e.g. user:alice", autocomplete: "off", required: true });
  const fromStart = el("input", { type: "checkbox" });
  const status = el("p", { class: "muted", "aria-live": "polite" });
  const feed = el("ol", { class: "feed", reversed: true });
  /** @type {any[]} */
  let entries = [];

  function draw() {
    show(
      feed,
      entries.map((c) =>
        el(
          "li",
          { class: `change change-${c.kind}` },
          el("span", { class: "kind" }, c.kind),
          " ",
          el("a", { href: `#/memory/${encodeURIComponent(c.id)}` }, c.id),
          ` ${c.state ?? ""} v${c.version ?? "—"} · ${when(c.at)} · ${c.actor} · #${c.position}`,
        ),
      ),
    );
  }

  /** @param {AbortSignal} signal */
  async function follow(signal) {
    /** @type {string | null} */
    let since = /** @type {HTMLInputElement} */ (fromStart).checked ? null : "now";
    entries = [];
    draw();
    while (!signal.aborted) {
      try {
        status.textContent = `Following ${/** @type {HTMLInputElement} */ (scope).value}…`;
        const text = await call("GET", "v1/changes", { query: { scope: /** @type {HTMLInputElement} */ (scope).value.trim(), since, timeout: WAIT, limit: 200 }, text: true, signal });
        const lines = ndjson(text);
        const trailer = lines.pop();
        if (lines.length) {
          entries = [...lines.reverse(), ...entries].slice(0, KEEP);
          draw();
        }
        since = trailer?.next ?? since;
      } catch (error) {
        if (signal.aborted) return;
        status.textContent = explain(error);
        return;
      }
    }
  }

  const form = el(
    "form",
    {
      class: "filters",
      "aria-label": "Follow a scope",
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        controller.abort();
        controller = new AbortController();
        follow(controller.signal);
      },
    },
    field("Scope", scope),
    el("label", { class: "check" }, fromStart, " from the start (else from now)"),
    el("button", { type: "submit" }, "Follow"),
    el("button", { type: "button", onclick: () => (controller.abort(), (status.textContent = "Stopped.")) }, "Stop"),
  );

  // The audit trail, a page at a time.
  const audit = el("div", {});
  const more = el("button", { type: "button", hidden: true }, "Later entries"); // the trail reads forward from the start
  /** @type {string | null} */
  let next = null;
  /** @type {any[]} */
  let rows = [];
  async function loadAudit() {
    try {
      const page = await call("GET", "v1/audit", { query: { since: next, limit: 50 }, signal: controller.signal });
      rows = rows.concat(page.entries);
      next = page.next;
      more.hidden = !page.more;
      show(
        audit,
        el(
          "table",
          { class: "list" },
          el("caption", { class: "sr-only" }, "Audit trail"),
          el("thead", {}, el("tr", {}, ["Position", "Time", "Actor", "Action", "Scope", "Memories"].map((h) => el("th", { scope: "col" }, h)))),
          el(
            "tbody",
            {},
            rows.map((r) =>
              el(
                "tr",
                {},
                el("td", {}, String(r.position)),
                el("td", {}, when(r.time)),
                el("td", {}, r.actor),
                el("td", {}, r.action),
                el("td", {}, r.scope ?? "—"),
                el("td", {}, r.memory_ids.slice(0, 3).map((/** @type {string} */ id) => el("a", { href: `#/memory/${encodeURIComponent(id)}` }, `${id.slice(0, 8)}… `)), r.memory_ids.length > 3 ? `+${r.memory_ids.length - 3}` : ""),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      show(audit, notice(explain(error), "error"));
    }
  }
  more.addEventListener("click", loadAudit);

  show(
    main,
    el("h1", {}, "Activity"),
    el("section", { "aria-labelledby": "feed-h" }, el("h2", { id: "feed-h" }, "Change feed"), form, status, feed),
    el("section", { "aria-labelledby": "audit-h" }, el("h2", { id: "audit-h" }, "Audit trail"), audit, more),
  );
  loadAudit();
  return () => controller.abort();
}
