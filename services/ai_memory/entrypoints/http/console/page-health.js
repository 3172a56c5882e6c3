// Health: the log's position, each projection's position and lag (polling /healthz with
// the key: an admin or operator key sees the details), dead letters and stuck
// projections as the health report gives them, and a scope's persona (L3) and episodes
// (L2) from the governance routes.

import { call } from "./api.js";
import { bar, el, explain, field, notice, show } from "./ui.js";

const EVERY_MS = 1000;

/** @type {import("./app.js").Render} */
export function render({ main }) {
  const controller = new AbortController();
  const report = el("div", { "aria-live": "off" });
  let timer = 0;

  async function poll() {
    try {
      const h = await call("GET", "healthz", { signal: controller.signal });
      if (!Array.isArray(h.projections)) {
        // A tenant's admin sees which projections are stuck, never positions or lag:
        // they count every tenant's writes (a deployment-wide operator key sees them).
        const stuck = Array.isArray(h.stuck)
          ? ` Stuck projections: ${h.stuck.map((/** @type {any} */ s) => s.projection).join(", ") || "none"}.`
          : " This key sees only the status.";
        show(report, notice(`Status: ${h.status}.${stuck} Positions and lag count every tenant's writes: they need a deployment-wide operator key.`));
      } else {
        /** @type {any[]} */
        const projections = h.projections;
        const head = Math.max(0, ...projections.map((p) => p.head));
        const dead = h.dead_letters ?? {};
        show(
          report,
          el(
            "dl",
            { class: "facts" },
            el("dt", {}, "status"),
            el("dd", { class: `status-${h.status}`, "data-status": h.status }, h.status),
            el("dt", {}, "version"),
            el("dd", {}, h.version ?? "—"),
            el("dt", {}, "embedder"),
            el("dd", {}, h.embedder ?? "—"),
            el("dt", {}, "log position"),
            el("dd", { "data-log-head": head }, String(head)),
          ),
          el(
            "table",
            { class: "list projections" },
            el("caption", {}, "Projections"),
            el("thead", {}, el("tr", {}, ["Projection", "Partition", "Position", "Head", "Lag", ""].map((t) => el("th", { scope: "col" }, t)))),
            el(
              "tbody",
              {},
              projections.map((p) =>
                el(
                  "tr",
                  { "data-projection": p.projection },
                  el("td", {}, p.projection),
                  el("td", {}, String(p.partition)),
                  el("td", {}, String(p.position)),
                  el("td", {}, String(p.head)),
                  el("td", { class: "lag", "data-lag": p.lag }, String(p.lag)),
                  el("td", {}, bar(`${p.projection} applied`, p.position, p.head || 1, `${p.head ? Math.round((100 * p.position) / p.head) : 100}%`)),
                ),
              ),
            ),
          ),
          el("h2", {}, "Dead letters"),
          h.dead_letters_error
            ? notice(`Dead letters could not be read: ${h.dead_letters_error}`, "error")
            : Object.keys(dead).length === 0
              ? notice("None.")
              : el("pre", {}, JSON.stringify(dead, null, 2)),
          el("p", { class: "muted" }, "The health report counts dead letters; listing or replaying them is done with the CLI (ai-memory dead-letters), not over HTTP."),
          (h.stuck ?? []).length ? [el("h2", {}, "Stuck projections"), el("pre", {}, JSON.stringify(h.stuck, null, 2))] : null,
          (h.warnings ?? []).length ? [el("h2", {}, "Warnings"), el("ul", {}, h.warnings.map((/** @type {unknown} */ w) => el("li", {}, typeof w === "string" ? w : JSON.stringify(w))))] : null,
        );
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      show(report, notice(explain(error), "error"));
    }
    if (!controller.signal.aborted) timer = window.setTimeout(poll, EVERY_MS);
  }

  // Persona (L3) and episodes (L2) of a scope.
  const scope = el("input", { type: "text", placeholder: "e.g. user:alice", autocomplete: "off", required: true });
  const layers = el("div", { "aria-live": "polite" });
  const form = el(
    "form",
    {
      class: "filters",
      "aria-label": "Persona and episodes",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const s = /** @type {HTMLInputElement} */ (scope).value.trim();
        try {
          const [persona, episodes] = await Promise.all([
            call("GET", "v1/persona", { query: { scope: s }, signal: controller.signal }),
            call("GET", "v1/episodes", { query: { scope: s }, signal: controller.signal }),
          ]);
          const kinds = ["preferences", "goals", "facts", "skills", "tasks"];
          show(
            layers,
            el("h3", {}, "Persona (L3)"),
            el(
              "dl",
              { class: "facts" },
              kinds.flatMap((k) => [el("dt", {}, k), el("dd", {}, (persona[k] ?? []).map((/** @type {any} */ x) => (typeof x === "string" ? x : x.content ?? JSON.stringify(x))).join(" · ") || "—")]),
            ),
            el("h3", {}, `Episodes (L2): ${episodes.episodes.length}`),
            el(
              "ul",
              {},
              episodes.episodes.map((/** @type {any} */ ep) => el("li", {}, `${ep.session_id ?? "no session"}: ${ep.memories.length} memories`)),
            ),
            el("p", { class: "muted" }, "Raw interactions (L0) are not listed by the API; each memory's meta names the interaction it came from."),
          );
        } catch (error) {
          show(layers, notice(explain(error), "error"));
        }
      },
    },
    field("Scope", scope),
    el("button", { type: "submit" }, "Show persona and episodes"),
  );

  show(
    main,
    el("h1", {}, "Health"),
    report,
    el("section", { "aria-labelledby": "layers-h" }, el("h2", { id: "layers-h" }, "Memory layers of a scope"), form, layers),
  );
  poll();
  return () => {
    controller.abort();
    window.clearTimeout(timer);
  };
}
