// Search as the agent sees it: POST /v1/memories/search (the query travels in the body,
// never in a URL), each result with every score component drawn as a bar and the
// reranker's explanation.

import { call } from "./api.js";
import { bar, el, explain, field, notice, show, when } from "./ui.js";

const STATES = ["active", "historical", "archived", "forgotten"];

/** @param {string} local a datetime-local value (read as UTC) */
function instant(local) {
  return local ? new Date(`${local}Z`).toISOString() : undefined;
}

/**
 * One result.
 * @param {any} hit
 * @param {Record<string, number>} maxima the largest value of each retrieval component
 */
function result(hit, maxima) {
  const r = hit.record;
  const explanation = hit.explanation;
  return el(
    "li",
    { class: "card hit" },
    el(
      "div",
      { class: "hit-head" },
      el("strong", { class: "score-total" }, Number(hit.score).toFixed(3)),
      el("a", { href: `#/memory/${encodeURIComponent(r.id)}` }, r.content),
    ),
    el("p", { class: "muted" }, `${r.type} · ${r.state} · ${r.scope} · ${r.source_agent} · written ${when(r.created_at)}`),
    explanation && Array.isArray(explanation.components)
      ? el(
          "div",
          { class: "score" },
          el("h3", {}, `Rerank: ${Number(explanation.total).toFixed(3)}`),
          explanation.components.map((/** @type {any} */ c) =>
            bar(`${c.name} (weight ${c.weight})`, Number(c.contribution), Number(c.weight), `${Number(c.value).toFixed(3)} × ${c.weight} = ${Number(c.contribution).toFixed(3)}`),
          ),
        )
      : null,
    el(
      "div",
      { class: "score" },
      el("h3", {}, "Retrieval components"),
      Object.entries(hit.components ?? {}).map(([name, value]) =>
        // A rank is better the lower it is: its bar is 1/rank (first = full), its text the rank.
        name.endsWith("_rank") && Number(value) > 0
          ? bar(name, 1 / Number(value), 1, `#${value}`)
          : bar(name, Number(value), maxima[name] || 1),
      ),
    ),
    explanation?.inputs
      ? el("details", {}, el("summary", {}, "Explanation inputs"), el("pre", {}, JSON.stringify(explanation.inputs, null, 2)))
      : null,
  );
}

/** @type {import("./app.js").Render} */
export function render({ main }) {
  const query = el("textarea", { rows: 2, required: true, autocomplete: "off" });
  const scope = el("input", { type: "text", placeholder: "e.g. user:alice (all scopes if empty)", autocomplete: "off" });
  const topK = el("input", { type: "number", min: 1, max: 100, value: 10 });
  const asOf = el("input", { type: "datetime-local", step: 1 });
  const knownAt = el("input", { type: "datetime-local", step: 1 });
  const states = STATES.map((s) => el("input", { type: "checkbox", value: s, checked: s === "active" }));
  const results = el("div", { "aria-live": "polite" });
  const value = (/** @type {HTMLElement} */ node) => /** @type {HTMLInputElement} */ (node).value.trim();

  // method=post: should the script ever not run, the browser would post, never put the
  // query into the address bar.
  const form = el(
    "form",
    {
      method: "post",
      class: "filters search",
      "aria-label": "Search",
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        show(results, notice("Searching…"));
        const chosen = states.filter((s) => /** @type {HTMLInputElement} */ (s).checked).map((s) => value(s));
        try {
          const answer = await call("POST", "v1/memories/search", {
            body: {
              query: value(query),
              scope: value(scope) || undefined,
              top_k: Number(value(topK)) || 10,
              states: chosen.length ? chosen : undefined,
              as_of: instant(value(asOf)),
              known_at: instant(value(knownAt)),
            },
          });
          /** @type {any[]} */
          const hits = answer.results;
          /** @type {Record<string, number>} */
          const maxima = {};
          for (const hit of hits) {
            for (const [name, v] of Object.entries(hit.components ?? {})) maxima[name] = Math.max(maxima[name] ?? 0, Number(v));
          }
          show(
            results,
            notice(`${hits.length} result${hits.length === 1 ? "" : "s"}.`),
            el("ol", { class: "hits" }, hits.map((hit) => result(hit, maxima))),
          );
        } catch (error) {
          show(results, notice(explain(error), "error"));
        }
      },
    },
    field("Query", query),
    field("Scope", scope),
    el(
      "fieldset",
      {},
      el("legend", {}, "States"),
      states.map((s) => el("label", { class: "check" }, s, ` ${value(s)}`)),
    ),
    field("As of (valid time, UTC)", asOf),
    field("Known at (recorded time, UTC)", knownAt),
    field("Results", topK),
    el("button", { type: "submit" }, "Search"),
  );
  show(main, el("h1", {}, "Search as the agent sees it"), form, results);
}
