// Forgetting: tombstones (a scope's forgotten and deleted memories, from the change
// feed), erasure receipts verified here with the published public key, and, for admin
// keys, the guarded actions: forget one memory, erase a subject (typed confirmation).

import { ApiError, call, ndjson } from "./api.js";
import { el, explain, field, notice, show, when } from "./ui.js";
import { verifyReceipt } from "./receipts.js";

const TOMBSTONES = new Set(["forgotten", "deleted", "erased"]);
const ERASURES_SLOT = "aimem.console.erasures"; // ids of erasures made from this tab
const REASONS = ["operator request", "incorrect", "privacy request", "retention"];

/** @returns {string[]} */
function madeHere() {
  try {
    return JSON.parse(sessionStorage.getItem(ERASURES_SLOT) ?? "[]");
  } catch {
    return [];
  }
}

/** @param {string} id */
function remember(id) {
  const ids = madeHere().filter((x) => x !== id);
  sessionStorage.setItem(ERASURES_SLOT, JSON.stringify([id, ...ids].slice(0, 20)));
}

/** @param {HTMLElement} node */
const value = (node) => /** @type {HTMLInputElement} */ (node).value.trim();

/**
 * A confirmation box: the action's button is enabled only once `expected()` is typed.
 * @param {HTMLElement} button
 * @param {() => string} expected
 * @param {string} label
 */
function confirmation(button, expected, label) {
  const box = el("input", { type: "text", autocomplete: "off", spellcheck: "false" });
  const check = () => {
    const want = expected();
    /** @type {HTMLButtonElement} */ (button).disabled = want === "" || value(box) !== want;
  };
  box.addEventListener("input", check);
  check();
  return { box: field(label, box), check, clear: () => ((/** @type {HTMLInputElement} */ (box).value = ""), check()) };
}

/** @type {import("./app.js").Render} */
export function render({ main, rights }, [prefill = ""]) {
  const controller = new AbortController();
  const signal = controller.signal;
  const published = call("GET", "v1/erasures/public-key", { signal });
  /** @type {Promise<string>} */
  const publicKey = published.then((k) => k.pem);
  publicKey.catch(() => {}); // said in keyLine; a verification asks again for its own error
  const keyLine = el("p", { class: "muted" }, "Loading the receipt public key…");
  published
    .then((k) => (keyLine.textContent = `Receipts are verified in this page with the server's published ${k.algorithm} key ${k.key_id}.`))
    .catch((error) => (keyLine.textContent = explain(error)));

  // Receipts: fetch one by id, or paste one; both verified with WebCrypto.
  const receiptOut = el("div", { "aria-live": "polite" });
  /** @param {string} text @param {string} source */
  async function showReceipt(text, source) {
    show(receiptOut, notice("Verifying…"));
    let verdict;
    let body = null;
    try {
      body = await verifyReceipt(text, await publicKey);
      verdict = el("p", { class: "verdict ok", role: "status", "data-verified": "true" }, "✔ Signature verified: this receipt was signed by the server's erasure key and is unchanged.");
    } catch (error) {
      verdict = el("p", { class: "verdict bad", role: "alert", "data-verified": "false" }, `✘ Verification failed: ${explain(error)}`);
    }
    /** @type {unknown} */
    let shown = body;
    if (!shown) {
      try {
        shown = JSON.parse(text);
      } catch {
        shown = text;
      }
    }
    const erased = body?.erased;
    show(
      receiptOut,
      el("h3", {}, `Receipt (${source})`),
      verdict,
      erased ? el("p", {}, `Erased ${erased.memory_ids?.length ?? 0} memories and ${erased.interaction_ids?.length ?? 0} interactions; issued ${when(body?.issued_at)}; the server's own check ${body?.verification?.passed ? "passed" : "did not pass"}.`) : null,
      el("pre", { class: "receipt" }, typeof shown === "string" ? shown : JSON.stringify(shown, null, 2)),
    );
  }
  /** @param {string} id */
  async function fetchReceipt(id) {
    try {
      await showReceipt(await call("GET", `v1/erasures/${encodeURIComponent(id)}`, { text: true, signal }), id);
    } catch (error) {
      show(receiptOut, notice(explain(error), "error"));
    }
  }
  const erasureId = el("input", { type: "text", autocomplete: "off", placeholder: "era-…" });
  const pasted = el("textarea", { rows: 4, spellcheck: "false" });
  const lookup = el(
    "form",
    {
      class: "filters",
      "aria-label": "Look up a receipt",
      onsubmit: (/** @type {SubmitEvent} */ e) => (e.preventDefault(), fetchReceipt(value(erasureId))),
    },
    field("Erasure id", erasureId),
    el("button", { type: "submit" }, "Fetch and verify"),
  );
  const paste = el(
    "form",
    {
      class: "filters",
      "aria-label": "Verify a pasted receipt",
      onsubmit: (/** @type {SubmitEvent} */ e) => (e.preventDefault(), showReceipt(/** @type {HTMLTextAreaElement} */ (pasted).value, "pasted")),
    },
    field("Receipt JSON", pasted, "any receipt text, as served or saved"),
    el("button", { type: "submit" }, "Verify pasted receipt"),
  );
  const recent = el("ul", { class: "erasures" });
  function listRecent() {
    show(
      recent,
      madeHere().map((id) => el("li", {}, el("button", { type: "button", class: "link", onclick: () => fetchReceipt(id) }, id))),
    );
  }
  listRecent();

  // Tombstones of a scope, from its change feed (forgotten, deleted, erased entries).
  const tombScope = el("input", { type: "text", placeholder: "e.g. user:alice", autocomplete: "off" });
  const tombOut = el("div", { "aria-live": "polite" });
  /** @type {string | null} */
  let tombCursor = null;
  /** @type {any[]} */
  let tombs = [];
  const moreTombs = el("button", { type: "button", hidden: true }, "Read further");
  async function readTombs() {
    try {
      const text = await call("GET", "v1/changes", { query: { scope: value(tombScope), since: tombCursor, limit: 1000 }, text: true, signal });
      const lines = ndjson(text);
      const trailer = lines.pop();
      tombs = tombs.concat(lines.filter((c) => TOMBSTONES.has(c.kind)));
      tombCursor = trailer?.next ?? null;
      moreTombs.hidden = !trailer?.more;
      show(
        tombOut,
        tombs.length === 0
          ? notice("No tombstones in what was read.")
          : el(
              "table",
              { class: "list" },
              el("caption", { class: "sr-only" }, "Tombstones"),
              el("thead", {}, el("tr", {}, ["Memory", "Kind", "When", "By", "Position"].map((h) => el("th", { scope: "col" }, h)))),
              el(
                "tbody",
                {},
                tombs.map((c) =>
                  el(
                    "tr",
                    { class: "tombstone" },
                    el("td", {}, el("a", { href: `#/memory/${encodeURIComponent(c.id)}` }, c.id)),
                    el("td", {}, c.kind),
                    el("td", {}, when(c.at)),
                    el("td", {}, c.actor),
                    el("td", {}, String(c.position)),
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      show(tombOut, notice(explain(error), "error"));
    }
  }
  moreTombs.addEventListener("click", readTombs);
  const tombForm = el(
    "form",
    {
      class: "filters",
      "aria-label": "Tombstones of a scope",
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        tombCursor = null;
        tombs = [];
        readTombs();
      },
    },
    field("Scope", tombScope),
    el("button", { type: "submit" }, "Show tombstones"),
  );

  const sections = [
    el("h1", {}, "Forgetting"),
    keyLine,
    el("section", { "aria-labelledby": "tomb-h" }, el("h2", { id: "tomb-h" }, "Tombstones"), tombForm, tombOut, moreTombs),
    el(
      "section",
      { "aria-labelledby": "receipt-h" },
      el("h2", { id: "receipt-h" }, "Erasure receipts"),
      lookup,
      el("p", { class: "muted" }, "Erasures made from this tab:"),
      recent,
      paste,
      receiptOut,
    ),
  ];

  if (rights.detailed) sections.push(adminActions(prefill, fetchReceipt, listRecent, signal));
  else sections.push(el("p", { class: "muted" }, "Forgetting and erasing need an admin key; this key sees them only."));
  show(main, ...sections);
  return () => controller.abort();
}

/**
 * The guarded actions (shown to admin and operator keys; the API judges anyway).
 * @param {string} prefill a memory id to forget
 * @param {(id: string) => Promise<void>} fetchReceipt
 * @param {() => void} listRecent
 * @param {AbortSignal} signal
 */
function adminActions(prefill, fetchReceipt, listRecent, signal) {
  const memoryId = el("input", { type: "text", autocomplete: "off", value: prefill });
  const reason = el("select", {}, REASONS.map((r) => el("option", { value: r }, r)));
  const forgetButton = el("button", { type: "submit", class: "danger" }, "Forget memory");
  const forgetConfirm = confirmation(forgetButton, () => value(memoryId), "Type the memory id to confirm");
  memoryId.addEventListener("input", forgetConfirm.check);
  const forgetOut = el("div", { "aria-live": "polite" });
  const forgetForm = el(
    "form",
    {
      class: "card danger-zone",
      "aria-label": "Forget a memory",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const id = value(memoryId);
        try {
          // The reason is one of a fixed list: free text would travel in the URL.
          const answer = await call("DELETE", `v1/memories/${encodeURIComponent(id)}`, { query: { wait: true, reason: value(reason) }, signal });
          show(forgetOut, notice(answer.already_forgotten ? `${id} was already forgotten.` : `Forgotten: ${id} (log position ${answer.position}); its tombstone is in the change feed.`, "ok"));
          forgetConfirm.clear();
        } catch (error) {
          show(forgetOut, notice(explain(error), "error"));
        }
      },
    },
    el("h3", {}, "Forget a memory"),
    field("Memory id", memoryId),
    field("Reason", reason),
    forgetConfirm.box,
    forgetButton,
    forgetOut,
  );

  const subject = el("input", { type: "text", autocomplete: "off", placeholder: "e.g. user:alice" });
  const eraseReason = el("select", {}, REASONS.map((r) => el("option", { value: r }, r)));
  const eraseButton = el("button", { type: "submit", class: "danger" }, "Erase subject");
  const eraseConfirm = confirmation(eraseButton, () => value(subject), "Type the scope to confirm");
  subject.addEventListener("input", eraseConfirm.check);
  const eraseOut = el("div", { "aria-live": "polite" });
  const eraseForm = el(
    "form",
    {
      class: "card danger-zone",
      "aria-label": "Erase a subject",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        try {
          const answer = await call("POST", "v1/erasures", { query: { wait: true }, body: { scope: value(subject), reason: value(eraseReason) }, signal });
          remember(answer.erasure_id);
          listRecent();
          show(eraseOut, notice(`Erased ${answer.memories} memories and ${answer.interactions} interactions: ${answer.erasure_id}.`, "ok"));
          eraseConfirm.clear();
          await fetchReceipt(answer.erasure_id);
        } catch (error) {
          const text = error instanceof ApiError && error.status === 403 ? `Only an admin key of the tenant may erase. ${explain(error)}` : explain(error);
          show(eraseOut, notice(text, "error"));
        }
      },
    },
    el("h3", {}, "Erase a subject"),
    el("p", {}, "Forgets every memory and raw interaction of the scope, destroys their keys and issues a signed receipt. It cannot be undone."),
    field("Scope", subject),
    field("Reason", eraseReason),
    eraseConfirm.box,
    eraseButton,
    eraseOut,
  );
  return el("section", { "aria-labelledby": "admin-h", class: "admin" }, el("h2", { id: "admin-h" }, "Admin actions"), forgetForm, eraseForm);
}
