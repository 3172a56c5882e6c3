// One memory: its current record, its lineage as a timeline (written, superseded, state
// changes with the rule and the score breakdown, forgotten) across the memories that
// supersede it or that it supersedes, and a time-travel slider that asks the lineage
// route what was in force at an instant (as_of: valid time; known_at: recorded time).

import { ApiError, call } from "./api.js";
import { bar, el, explain, field, notice, show, when } from "./ui.js";

const MAX_CHAIN = 12; // memories followed through supersedes / superseded_by

/** @param {string} id */
function short(id) {
  return id.length > 13 ? `${id.slice(0, 8)}…` : id;
}

/**
 * A score breakdown (old_score / new_score of a governance decision) as bars.
 * @param {string} title
 * @param {any} score
 */
function scoreBars(title, score) {
  if (!score || !Array.isArray(score.components)) return null;
  return el(
    "div",
    { class: "score" },
    el("h4", {}, `${title}: ${Number(score.total).toFixed(3)}`),
    score.components.map((/** @type {any} */ c) =>
      bar(`${c.name} (weight ${c.weight})`, Number(c.contribution), Number(c.weight), `${Number(c.value).toFixed(3)} → ${Number(c.contribution).toFixed(3)}`),
    ),
  );
}

/**
 * One timeline entry.
 * @param {any} event
 * @param {string} memoryId the memory whose lineage holds it
 * @param {string} focus the page's memory
 */
function entry(event, memoryId, focus) {
  const decision = event.decision;
  const change = event.from || event.to ? `${event.from ?? "—"} → ${event.to ?? "—"}` : event.state ?? "";
  return el(
    "li",
    { class: `event event-${event.kind}` },
    el(
      "div",
      { class: "event-head" },
      el("span", { class: "kind" }, event.kind.replace("_", " ")),
      memoryId === focus ? null : el("a", { href: `#/memory/${encodeURIComponent(memoryId)}` }, `memory ${short(memoryId)}`),
      event.memory_id ? el("span", {}, `of ${short(event.memory_id)}`) : null,
      change ? el("span", { class: "change" }, change) : null,
      event.version ? el("span", {}, `version ${event.version}`) : null,
    ),
    el(
      "dl",
      { class: "facts" },
      el("dt", {}, "recorded"),
      el("dd", {}, `${when(event.at)} (log position ${event.position})`),
      event.cause ? [el("dt", {}, "rule"), el("dd", {}, event.cause)] : null,
      event.reason ? [el("dt", {}, "reason"), el("dd", {}, event.reason)] : null,
      el("dt", {}, "by"),
      el("dd", {}, event.actor ?? "—"),
    ),
    decision
      ? el(
          "div",
          { class: "decision" },
          el("p", {}, decision.reason ?? "", decision.detector ? ` (detector ${decision.detector}` : "", decision.theta !== undefined ? `, θ ${decision.theta}, margin ${Number(decision.margin).toExponential(2)})` : decision.detector ? ")" : ""),
          scoreBars("old memory's score", decision.old_score),
          scoreBars("new memory's score", decision.new_score),
          scoreBars("score", decision.score),
        )
      : null,
  );
}

/** @type {import("./app.js").Render} */
export function render({ main, rights }, [id = ""]) {
  const controller = new AbortController();
  const signal = controller.signal;
  const heading = el("h1", {}, `Memory ${id}`);
  const current = el("div", {}, notice("Loading…"));
  const travel = el("section", { "aria-labelledby": "travel-h" });
  const timeline = el("section", { "aria-labelledby": "timeline-h" });
  show(main, heading, current, travel, timeline);

  /** @type {Map<string, any>} records by id (null: gone or not readable) */
  const records = new Map();
  /** @type {Map<string, any>} lineages by id */
  const lineages = new Map();

  async function follow() {
    const queue = [id];
    while (queue.length > 0 && lineages.size < MAX_CHAIN) {
      const next = /** @type {string} */ (queue.shift());
      if (lineages.has(next)) continue;
      const lineage = await call("GET", `v1/memories/${encodeURIComponent(next)}/lineage`, { signal });
      lineages.set(next, lineage);
      try {
        records.set(next, await call("GET", `v1/memories/${encodeURIComponent(next)}`, { signal }));
      } catch (error) {
        if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 410)) throw error;
        records.set(next, null);
      }
      for (const other of [...lineage.supersedes, ...lineage.superseded_by]) queue.push(other);
    }
  }

  function currentCard() {
    const record = records.get(id);
    const lineage = lineages.get(id);
    const valid = `${when(lineage.valid_from)} → ${lineage.valid_to ? when(lineage.valid_to) : "now"}`;
    if (!record) {
      return el("div", { class: "card" }, notice(`No readable record: the memory is ${lineage.state}.`), el("p", {}, `Valid ${valid}`));
    }
    return el(
      "div",
      { class: "card record" },
      el("blockquote", { class: "content" }, record.content),
      el(
        "dl",
        { class: "facts" },
        ...[
          ["state", record.state],
          ["type", record.type],
          ["scope", record.scope],
          ["source agent", record.source_agent],
          ["version", record.version],
          ["tags", (record.tags ?? []).join(", ") || "—"],
          ["valid", valid],
          ["written", when(record.created_at)],
          ["updated", when(record.updated_at)],
          ["reads", record.read_count ?? "—"],
        ].flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]),
      ),
      Object.keys(record.meta ?? {}).length ? el("details", {}, el("summary", {}, "meta"), el("pre", {}, JSON.stringify(record.meta, null, 2))) : null,
      rights.detailed && record.state !== "forgotten"
        ? el("p", {}, el("a", { href: `#/forgetting/${encodeURIComponent(id)}`, class: "danger-link" }, "Forget this memory…"))
        : null,
    );
  }

  function timelineList() {
    /** @type {{event: any, memory: string}[]} */
    const events = [];
    for (const [memory, lineage] of lineages) for (const event of lineage.events) events.push({ event, memory });
    events.sort((a, b) => a.event.position - b.event.position || (a.memory === id ? -1 : 1));
    return el(
      "ol",
      { class: "timeline" },
      events.map(({ event, memory }) => entry(event, memory, id)),
    );
  }

  function travelControls() {
    // The instants as the API wrote them (microseconds: a JS Date would round them down
    // to before the event); ordered by time, then by text (the microseconds, same format).
    /** @type {Set<string>} */
    const instants = new Set();
    // The instants something happened: what the log recorded (a valid time before its
    // record was known answers "unknown", so those instants would show nothing).
    for (const lineage of lineages.values()) for (const event of lineage.events) instants.add(event.at);
    const times = [...instants].sort((a, b) => Date.parse(a) - Date.parse(b) || (a < b ? -1 : a > b ? 1 : 0));
    const axis = el(
      "select",
      {},
      el("option", { value: "as_of" }, "valid time (as_of)"),
      el("option", { value: "known_at" }, "recorded time (known_at)"),
    );
    const slider = el("input", { type: "range", min: 0, max: times.length, step: 1, value: times.length });
    const label = el("output", {});
    const answer = el("div", { "aria-live": "polite", class: "travel-answer" });
    let seq = 0;

    async function look() {
      const index = Number(/** @type {HTMLInputElement} */ (slider).value);
      const t = index >= times.length ? null : times[index];
      label.textContent = t === null ? "now" : t.replace("T", " ");
      slider.setAttribute("aria-valuetext", label.textContent);
      const mine = ++seq;
      try {
        const name = /** @type {HTMLSelectElement} */ (axis).value;
        const states = await Promise.all(
          [...lineages.keys()].map(async (memory) => {
            const then = await call("GET", `v1/memories/${encodeURIComponent(memory)}/lineage`, {
              query: t === null ? {} : { [name]: t },
              signal,
            });
            return { memory, state: then.state };
          }),
        );
        if (mine !== seq) return; // a later move answered already
        const active = states.filter((s) => s.state === "active");
        show(
          answer,
          el("p", {}, `In force at ${label.textContent}:`),
          active.length === 0
            ? notice("Nothing of this lineage was in force then.")
            : active.map(({ memory }) => {
                const record = records.get(memory);
                return el(
                  "div",
                  { class: "card then" },
                  el("blockquote", { class: "content" }, record ? record.content : "(content forgotten)"),
                  el("p", { class: "muted" }, memory === id ? "this memory" : el("a", { href: `#/memory/${encodeURIComponent(memory)}` }, `memory ${memory}`)),
                );
              }),
          el(
            "ul",
            { class: "states" },
            states.map((s) => el("li", {}, `${short(s.memory)}: ${s.state}`)),
          ),
        );
      } catch (error) {
        if (!signal.aborted) show(answer, notice(explain(error), "error"));
      }
    }
    slider.addEventListener("input", look);
    axis.addEventListener("change", look);
    const controls = el(
      "div",
      { class: "travel" },
      field("Time axis", axis),
      field("Time travel", slider, "← earlier · later →"),
      label,
    );
    look();
    return [el("h2", { id: "travel-h" }, "Time travel"), controls, answer];
  }

  follow()
    .then(() => {
      const record = records.get(id);
      if (record) heading.textContent = `Memory ${short(id)} (${record.type}, ${record.scope})`;
      show(current, currentCard());
      show(travel, travelControls());
      show(timeline, el("h2", { id: "timeline-h" }, "Lineage"), timelineList());
    })
    .catch((error) => {
      if (!signal.aborted) show(current, notice(explain(error), "error"));
    });
  return () => controller.abort();
}
