// The console's shell: sign-in, what the key may see, and the hash router.
//
// Routes (#/memories, #/memory/<id>, #/search, #/forgetting, #/activity, #/health) carry
// ids and nothing else: a memory's content or a search query is never part of a URL.

import { ApiError, REFUSED_EVENT, call, forgetKey, keepKey, storedKey } from "./api.js";
import { el, explain, field, notice, show } from "./ui.js";
import * as activity from "./page-activity.js";
import * as forgetting from "./page-forgetting.js";
import * as health from "./page-health.js";
import * as memories from "./page-memories.js";
import * as memory from "./page-memory.js";
import * as search from "./page-search.js";

/**
 * What this key may see, as the API reveals it.
 * @typedef {{detailed: boolean, open: boolean}} Rights
 * - detailed: /healthz answers with more than the status (which projections are stuck):
 *   an admin or operator key (or open development mode). Admin actions are offered only
 *   then; a 403 is handled anyway.
 * - open: no key was needed (open development mode).
 * @typedef {{rights: Rights, main: HTMLElement}} Context
 * @typedef {(ctx: Context, args: string[]) => (void | (() => void))} Render
 */

/** @type {Record<string, Render>} */
const PAGES = {
  memories: memories.render,
  memory: memory.render,
  search: search.render,
  forgetting: forgetting.render,
  activity: activity.render,
  health: health.render,
};

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
const whoami = /** @type {HTMLElement} */ (document.getElementById("whoami"));
const signOutButton = /** @type {HTMLButtonElement} */ (document.getElementById("sign-out"));
/** @type {Rights | null} */
let rights = null;
/** @type {void | (() => void)} */
let leave;

/**
 * Learn what the stored key may see; throws ApiError 401 when the key is refused.
 * @returns {Promise<Rights>}
 */
async function probe() {
  try {
    await call("GET", "v1/memories", { query: { limit: 1 } });
  } catch (error) {
    // 403: a valid key that may not list every scope (a scoped key): still signed in.
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
  }
  const health = await call("GET", "healthz");
  return { detailed: Array.isArray(health.stuck), open: storedKey() === "" };
}

/** @param {string} [why] shown above the form (a session that ended) */
function signInPage(why) {
  nav.hidden = true;
  signOutButton.hidden = true;
  whoami.textContent = "";
  const key = el("input", { type: "password", name: "api-key", autocomplete: "off", spellcheck: "false" });
  const status = el("div", { "aria-live": "polite" });
  const form = el(
    "form",
    {
      class: "card sign-in",
      "aria-label": "Sign in",
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        keepKey(/** @type {HTMLInputElement} */ (key).value.trim());
        try {
          rights = await probe();
          start();
        } catch (error) {
          forgetKey();
          rights = null;
          show(status, notice(explain(error), "error"));
        }
      },
    },
    el("h1", {}, "Sign in"),
    el(
      "p",
      {},
      "Type an API key (ai-memory keys create). It is kept in this tab only (sessionStorage) and sent to this server's API, nowhere else. With no keys configured (open development mode) leave it empty.",
    ),
    field("API key", key),
    el("button", { type: "submit" }, "Sign in"),
    status,
  );
  if (why) show(status, notice(why, "error"));
  show(main, form);
  key.focus();
}

function describeRights() {
  if (!rights) return "";
  if (rights.open) return "Open development mode (no key needed)";
  return rights.detailed ? "Signed in: admin or operator key" : "Signed in: reader or writer key (no admin actions)";
}

function route() {
  if (typeof leave === "function") leave();
  leave = undefined;
  if (rights === null) return signInPage();
  const [name = "memories", ...args] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const render = PAGES[name] ?? PAGES.memories;
  for (const link of nav.querySelectorAll("a")) {
    const here = link.getAttribute("href") === `#/${name}` || (name === "memory" && link.getAttribute("href") === "#/memories");
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  main.replaceChildren();
  leave = render({ rights, main }, args);
}

function start() {
  nav.hidden = false;
  signOutButton.hidden = false;
  whoami.textContent = describeRights();
  if (!location.hash || location.hash === "#") location.hash = "#/memories";
  else route();
}

signOutButton.addEventListener("click", () => {
  forgetKey();
  rights = null;
  route();
});
window.addEventListener("hashchange", route);
window.addEventListener(REFUSED_EVENT, () => {
  if (rights === null) return; // signing in: the form says why
  if (typeof leave === "function") leave();
  leave = undefined;
  forgetKey();
  rights = null;
  signInPage("The key was refused (revoked, expired or no longer valid): sign in again.");
});

async function boot() {
  if (storedKey() === null) return signInPage();
  try {
    rights = await probe();
    start();
  } catch {
    forgetKey();
    signInPage();
  }
}

boot();
