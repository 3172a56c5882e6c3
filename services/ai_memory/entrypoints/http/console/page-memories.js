// Memories: a filtered page of the tenant's memories at a time, through the API's cursors
// (GET /v1/memories → next_cursor), so it stays usable with any number of memories.

import { call } from "./api.js";
import { el, explain, field, notice, show, when } from "./ui.js";

const PAGE_SIZE = 50;
const TYPES = ["", "fact", "task", "preference", "skill", "interaction"];
const STATES = ["", "active", "historical", "archived", "forgotten"];

/**
 * @param {string[]} values
 * @param {string} blank what the empty choice means
 */
function select(values, blank) {
  return el("select", {}, values.map((v) => el("option", { value: v }, v || blank)));
}

/** @param {string} text @param {number} size */
function excerpt(text, size) {
  return text.length > size ? `${text.slice(0, size)}…` : text;
}

/** @type {import("./app.js").Render} */
export function render({ main }) {
  const scope = el("input", { type: "text", list: "seen-scopes", placeholder: "all scopes", autocomplete: "off" });
  const seen = el("datalist", { id: "seen-scopes" });
  const type = select(TYPES, "any type");
  const state = select(STATES, "active (default)");
  const tag = el("input", { type: "text", placeholder: "any tag", autocomplete: "off" });
  const agent = el("input", { type: "text", placeholder: "any agent", autocomplete: "off" });
  const summary = el("p", { class: "muted", "aria-live": "polite" });
  const table = el("div", {});
  const previous = el("button", { type: "button", disabled: true }, "Previous page");
  const next = el("button", { type: "button", disabled: true }, "Next page");
  /** @type {(string | null)[]} cursors of the pages before this one, and this one's */
  let cursors = [null];
  const scopes = new Set();
  const input = (/** @type {HTMLElement} */ node) => /** @type {HTMLInputElement} */ (node).value.trim();

  async function load() {
    show(table, notice("Loading…"));
    const cursor = cursors[cursors.length - 1];
    try {
      const page = await call("GET", "v1/memories", {
        query: { scope: input(scope), type: input(type), state: input(state), tag: input(tag), cursor, limit: PAGE_SIZE },
      });
      /** @type {any[]} */
      const items = page.items;
      for (const m of items) scopes.add(m.scope);
      show(seen, [...scopes].sort().map((s) => el("option", { value: s })));
      // The API filters by scope, type, state and tag; the source agent only on this page.
      const wanted = input(agent);
      const shown = wanted ? items.filter((m) => m.source_agent === wanted) : items;
      /** @type {HTMLButtonElement} */ (next).disabled = !page.next_cursor;
      /** @type {HTMLButtonElement} */ (previous).disabled = cursors.length < 2;
      next.dataset.cursor = page.next_cursor ?? "";
      summary.textContent = `Page ${cursors.length}: ${shown.length} of ${items.length} memories${wanted ? ` (agent ${wanted} on this page)` : ""}${page.next_cursor ? ", more after" : ""}.`;
      show(
        table,
        shown.length === 0
          ? notice("No memories match.")
          : el(
              "table",
              { class: "list" },
              el("caption", { class: "sr-only" }, "Memories"),
              el("thead", {}, el("tr", {}, ["Content", "Type", "State", "Scope", "Agent", "Tags", "Written"].map((h) => el("th", { scope: "col" }, h)))),
              el(
                "tbody",
                {},
                shown.map((m) =>
                  el(
                    "tr",
                    {},
                    el("td", {}, el("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, excerpt(m.content, 120))),
                    el("td", {}, m.type),
                    el("td", {}, el("span", { class: `state state-${m.state}` }, m.state)),
                    el("td", {}, m.scope),
                    el("td", {}, m.source_agent),
                    el("td", {}, (m.tags ?? []).join(", ")),
                    el("td", {}, when(m.created_at)),
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      show(table, notice(explain(error), "error"));
    }
  }

  async function usage() {
    try {
      const u = await call("GET", "v1/usage");
      return notice(`The tenant ${u.tenant} holds ${u.memories} memories (${u.bytes} bytes). Counts per scope are not offered by the API.`);
    } catch {
      return null; // a key that may not read usage still lists memories
    }
  }

  const form = el(
    "form",
    {
      class: "filters",
      "aria-label": "Filter memories",
      onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        cursors = [null];
        load();
      },
    },
    field("Scope", scope),
    seen,
    field("Type", type),
    field("State", state),
    field("Tag", tag),
    field("Source agent", agent, "filters the page shown"),
    el("button", { type: "submit" }, "Apply filters"),
  );
  previous.addEventListener("click", () => {
    cursors.pop();
    load();
  });
  next.addEventListener("click", () => {
    cursors.push(next.dataset.cursor || null);
    load();
  });
  const usageSlot = el("div", {});
  show(main, el("h1", {}, "Memories"), usageSlot, form, summary, table, el("div", { class: "pager" }, previous, next));
  usage().then((n) => show(usageSlot, n));
  load();
}
