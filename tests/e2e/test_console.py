"""The operator console (``/console``) in a real headless Chromium against a real server.

Debian's ``/usr/bin/chromium`` driven by Playwright (no browser is downloaded), a real
``ai-memory serve`` with keys in force: an admin and a reader key of tenant ``acme``, an
operator key, and an admin key of another tenant. The scenarios attack what the console
promises: the key stays in this tab's sessionStorage, a reader is offered no admin
action, another tenant sees nothing, a receipt verifies in the page and a tampered one
fails, a forget needs the id typed back, every input has a label, and no memory content
or search query ever appears in a URL the browser asked for or in the server's log.

With ``AIMEM_CONSOLE_SCREENSHOTS=1`` the same run writes docs/console/*.png.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_memory.sdk.receipts import ReceiptInvalidError, verify_receipt
from tests.e2e.test_keys_server import create_key
from tests.e2e.test_server_and_cli import Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and os.environ.get("AIMEM_TEST_TOOLS") != "required",
    reason="Debian's chromium is not installed (apt-get install chromium)",
)
if os.environ.get("AIMEM_TEST_TOOLS") == "required":  # `make test`: a missing driver fails
    import playwright.sync_api as sync_api
else:
    sync_api = pytest.importorskip("playwright.sync_api")

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "console"
SUBJECT = "user:alice"
ERASED = "user:bob"
# Words that must never reach a URL or the log: memory content and the search query.
PARIS = "I live in Paris with my cat Miso."
BERLIN = "I moved to Berlin, I live in Berlin now."
BOB = "I live in Lisbon, by the courtyard."
QUERY = "where does the user reside nowadays"
SECRET_WORDS = ("Paris", "Berlin", "Lisbon", "Miso", "courtyard", "reside", "nowadays")


class Deployment:
    def __init__(self, root: Path) -> None:
        data = root / "data"
        self.admin = create_key(data, "--tenant", "acme", "--role", "admin")
        self.reader = create_key(data, "--tenant", "acme", "--role", "reader")
        self.operator = create_key(data, "--tenant", "*", "--role", "operator")
        self.stranger = create_key(data, "--tenant", "globex", "--role", "admin")
        self.server = Server(data)
        self.url = self.server.url
        self.http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.admin}"}, timeout=30
        )
        self.asked: list[str] = []  # every URL the browser requested, in every test

    def interaction(self, scope: str, text: str) -> dict[str, Any]:
        r = self.http.post(
            "/v1/interactions?wait=true",
            json={"scope": scope, "source_agent": "chat", "text": text},
        )
        assert r.status_code == 201, r.text
        answer: dict[str, Any] = r.json()
        return answer


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    d = Deployment(tmp_path_factory.mktemp("console"))
    paris = d.interaction(SUBJECT, PARIS)["memories"][0]["id"]
    time.sleep(1.2)  # the two statements a second apart: distinct instants on the slider
    berlin = d.interaction(SUBJECT, BERLIN)["memories"][0]["id"]
    d.interaction(ERASED, BOB)
    d.paris, d.berlin = paris, berlin  # type: ignore[attr-defined]
    yield d
    d.http.close()
    d.server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, deployment: Deployment) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.on("request", lambda request: deployment.asked.append(request.url))
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda error: errors.append(str(error)))
    pg.on("framenavigated", lambda frame: deployment.asked.append(frame.url))
    yield pg
    context.close()
    assert errors == [], errors  # no script error on any page


def shoot(page: Any, name: str) -> None:
    if os.environ.get("AIMEM_CONSOLE_SCREENSHOTS") == "1":
        from PIL import Image  # pillow comes with matplotlib, a dev dependency

        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        # A 128-colour palette keeps the committed pictures about a third of the size.
        shot = Image.open(path).convert("RGB")
        shot.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def sign_in(page: Any, url: str, key: str) -> None:
    page.goto(f"{url}/console")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()
    sync_api.expect(page.get_by_role("navigation", name="Pages")).to_be_visible()


def go(page: Any, url: str, route: str) -> None:
    page.goto(f"{url}/console#/{route}")


def test_the_page_and_its_files_carry_a_strict_policy(deployment: Deployment) -> None:
    page = httpx.get(f"{deployment.url}/console", timeout=10)
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self';" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert page.headers["referrer-policy"] == "no-referrer"
    script = httpx.get(f"{deployment.url}/console/assets/app.js", timeout=10)
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert script.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in page.text  # no inline script for the policy to forbid
    # The files need no key; nothing else near them escapes the door.
    for path in ("/console/assets/../../v1/memories", "/console/v1/memories", "/consoles"):
        refused = httpx.get(f"{deployment.url}{path}", timeout=10)
        assert refused.status_code in (401, 404), (path, refused.status_code)
    with httpx.Client(base_url=deployment.url, timeout=10) as raw:
        escaped = raw.send(raw.build_request("GET", "/console/assets/%2e%2e/%2e%2e/v1/memories"))
        assert escaped.status_code in (401, 404)
    post = httpx.post(f"{deployment.url}/console", timeout=10)
    assert post.status_code == 401


def test_sign_in_refuses_a_wrong_key_and_keeps_the_key_in_this_tab(
    page: Any, deployment: Deployment
) -> None:
    page.goto(f"{deployment.url}/console")
    shoot(page, "sign-in")
    page.get_by_label("API key").fill("aimem_0000000000000000_" + "A" * 43)
    page.get_by_role("button", name="Sign in").click()
    sync_api.expect(page.get_by_role("alert")).to_contain_text("refused")
    assert page.evaluate("sessionStorage.length") == 0
    sign_in(page, deployment.url, deployment.admin)
    sync_api.expect(page.locator("#whoami")).to_contain_text("admin")
    assert page.evaluate("sessionStorage.getItem('aimem.console.key')") == deployment.admin
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []
    assert deployment.admin not in page.url
    # A new tab of the same browser is not signed in: the key is this tab's alone.
    other = page.context.new_page()
    other.goto(f"{deployment.url}/console")
    sync_api.expect(other.get_by_label("API key")).to_be_visible()
    other.close()
    sync_api.expect(page.get_by_role("link", name=BERLIN)).to_be_visible()
    shoot(page, "memories")
    page.get_by_role("button", name="Sign out").click()
    assert page.evaluate("sessionStorage.length") == 0


def test_search_opens_the_lineage_and_the_slider_shows_the_older_version(
    page: Any, deployment: Deployment
) -> None:
    sign_in(page, deployment.url, deployment.admin)
    go(page, deployment.url, "search")
    page.get_by_label("Query").fill(QUERY)
    page.get_by_role("textbox", name="Scope", exact=True).fill(SUBJECT)
    page.get_by_role("checkbox", name="historical").check()
    page.get_by_role("button", name="Search").click()
    hit = page.get_by_role("link", name=BERLIN)
    sync_api.expect(hit).to_be_visible()
    # Every score component as a bar: the rerank's three and the retrieval's.
    first = page.locator(".hit").first
    assert first.get_by_role("meter").count() >= 4
    sync_api.expect(first.get_by_role("meter", name="relevance (weight 0.6)")).to_be_visible()
    sync_api.expect(page.get_by_role("link", name=PARIS)).to_be_visible()  # historical asked
    shoot(page, "search")
    hit.click()
    berlin = deployment.berlin  # type: ignore[attr-defined]
    page.wait_for_url(f"**/console#/memory/{berlin}")
    sync_api.expect(page.locator("blockquote.content").first).to_have_text(BERLIN)
    timeline = page.locator(".timeline")
    sync_api.expect(timeline.locator(".event-supersedes")).to_have_count(1)
    sync_api.expect(timeline.locator(".event-state_changed")).to_contain_text("active → historical")
    sync_api.expect(timeline.locator(".event-state_changed")).to_contain_text("conflict")
    assert timeline.locator(".event-state_changed").get_by_role("meter").count() >= 4
    answer = page.locator(".travel-answer")
    sync_api.expect(answer).to_contain_text(BERLIN)  # now
    slider = page.get_by_role("slider", name="Time travel")
    slider.focus()
    page.keyboard.press("Home")  # the earliest instant: only Paris was stated
    sync_api.expect(answer.locator(".then")).to_contain_text(PARIS)
    sync_api.expect(answer.locator(".then")).not_to_contain_text(BERLIN)
    shoot(page, "memory")
    page.keyboard.press("End")
    sync_api.expect(answer.locator(".then")).to_contain_text(BERLIN)
    sync_api.expect(answer.locator(".then")).not_to_contain_text(PARIS)
    # Recorded time: before Berlin was known, Paris was in force.
    page.get_by_label("Time axis").select_option("known_at")
    slider.focus()
    page.keyboard.press("Home")
    sync_api.expect(answer.locator(".then")).to_contain_text(PARIS)


def test_forget_needs_the_id_typed_and_an_erasure_receipt_verifies_in_the_page(
    page: Any, deployment: Deployment
) -> None:
    victim = deployment.http.post(
        "/v1/memories?wait=true",
        json={
            "type": "fact",
            "content": "Alice's locker code is in the Miso drawer.",
            "scope": SUBJECT,
            "source_agent": "chat",
        },
    ).json()["record"]["id"]
    sign_in(page, deployment.url, deployment.admin)
    go(page, deployment.url, f"forgetting/{victim}")
    forget = page.get_by_role("button", name="Forget memory")
    sync_api.expect(page.get_by_role("textbox", name="Memory id", exact=True)).to_have_value(victim)
    sync_api.expect(forget).to_be_disabled()
    confirm = page.get_by_label("Type the memory id to confirm")
    confirm.fill(victim[:-1])
    sync_api.expect(forget).to_be_disabled()  # almost is not confirmation
    confirm.fill(victim)
    sync_api.expect(forget).to_be_enabled()
    forget.click()
    sync_api.expect(page.get_by_role("status").filter(has_text="Forgotten")).to_be_visible()
    assert deployment.http.get(f"/v1/memories/{victim}").status_code in (404, 410)
    page.get_by_role("textbox", name="Scope", exact=True).first.fill(SUBJECT)
    page.get_by_role("button", name="Show tombstones").click()
    sync_api.expect(page.locator("tr.tombstone", has_text=victim)).to_be_visible()

    erase = page.get_by_role("button", name="Erase subject")
    page.get_by_role("textbox", name="Scope", exact=True).last.fill(ERASED)
    sync_api.expect(erase).to_be_disabled()
    page.get_by_label("Type the scope to confirm").fill(ERASED)
    erase.click()
    verdict = page.locator(".verdict")
    sync_api.expect(verdict).to_have_attribute("data-verified", "true", timeout=30000)
    sync_api.expect(page.locator(".receipt")).to_contain_text(ERASED)
    shoot(page, "forgetting")

    erasure_id = page.locator(".erasures button").first.inner_text()
    served = deployment.http.get(f"/v1/erasures/{erasure_id}").text
    pem = deployment.http.get("/v1/erasures/public-key").json()["pem"]
    verify_receipt(served, pem)  # the page and the Python verifier agree on the genuine one
    tampered = served.replace(f'"scope":"{ERASED}"', '"scope":"user:carol"')
    assert tampered != served
    with pytest.raises(ReceiptInvalidError):
        verify_receipt(tampered, pem)
    page.get_by_label("Receipt JSON").fill(tampered)
    page.get_by_role("button", name="Verify pasted receipt").click()
    sync_api.expect(verdict).to_have_attribute("data-verified", "false")
    sync_api.expect(verdict).to_contain_text("does not match")
    # A receipt that says two things (a duplicated key) is refused, not read leniently.
    doubled = served.replace('{"receipt":{', '{"receipt":{"tenant":"evil",', 1)
    page.get_by_label("Receipt JSON").fill(doubled)
    page.get_by_role("button", name="Verify pasted receipt").click()
    sync_api.expect(verdict).to_contain_text("duplicate key")
    # Pretty-printed, the genuine receipt still verifies (canonical form, not bytes).
    page.get_by_label("Receipt JSON").fill(json.dumps(json.loads(served), indent=2))
    page.get_by_role("button", name="Verify pasted receipt").click()
    sync_api.expect(verdict).to_have_attribute("data-verified", "true")


# Documents the page must write exactly as the server signs them, and texts it must refuse
# as the server's parser does (a lenient reader would see something else in them).
CANONICAL_CASES = [
    {"b": 1, "a": [True, False, None], "é": "ünïcödé", "\U0001f600": "astral key"},
    {"float": 0.1, "small": 1e-05, "big": 1e16, "neg": -2.5, "int": 12345678901234567890},
    {"esc": 'quote " backslash \\ tab \t nl \n ctl \u0001 del \u007f', "": {}},
    {"\uff5e": 1, "\U00010000": 2, "z": 3},  # code point order, not UTF-16 order
]
REFUSED_TEXTS = ['{"a":1,"a":2}', '{"a":NaN}', '{"a":1.0e0}', '{"a":01}', '{"a":-0}', '{"a":1} x']


def test_the_page_writes_canonical_json_as_the_server_does(
    page: Any, deployment: Deployment
) -> None:
    from ai_memory.core.receipt_format import canonical_json, parse_signed

    page.goto(f"{deployment.url}/console")
    run = """async ([texts, refused]) => {
        const m = await import('./console/assets/signed-json.js');
        const written = texts.map((t) => m.canonicalJson(m.parseSigned(t)));
        const refusals = refused.map((t) => {
            try { m.parseSigned(t); return null; } catch (e) { return e.name; }
        });
        return [written, refusals];
    }"""
    texts = [json.dumps(case, indent=1, ensure_ascii=True) for case in CANONICAL_CASES]
    written, refusals = page.evaluate(run, [texts, REFUSED_TEXTS])
    for text, mine in zip(texts, written, strict=True):
        assert mine.encode() == canonical_json(parse_signed(text)), text
    assert refusals == ["SignedJsonError"] * len(REFUSED_TEXTS)
    for text in REFUSED_TEXTS:
        with pytest.raises(ValueError):
            parse_signed(text)


def test_health_shows_the_lag_fall_to_zero_after_a_write(page: Any, deployment: Deployment) -> None:
    # Positions and lag count every tenant's writes: a deployment-wide operator sees them.
    sign_in(page, deployment.url, deployment.operator)
    go(page, deployment.url, "health")
    head = page.locator("[data-log-head]")
    sync_api.expect(head).to_be_visible()
    before = int(head.get_attribute("data-log-head") or 0)
    r = deployment.http.post(
        "/v1/memories",  # no wait: the projections catch up on their own
        json={
            "type": "fact",
            "content": "A note for the health page.",
            "scope": "team:ops",
            "source_agent": "chat",
        },
    )
    assert r.status_code in (201, 202), r.text
    # (expect polls; a wait_for_function string would be eval, which the page's CSP refuses)
    sync_api.expect(head).not_to_have_attribute("data-log-head", str(before))
    assert int(head.get_attribute("data-log-head") or 0) > before
    lags = page.locator("td.lag")
    sync_api.expect(lags).to_have_count(2)
    for i in range(2):
        sync_api.expect(lags.nth(i)).to_have_attribute("data-lag", "0")
    sync_api.expect(page.locator("[data-status]")).to_have_attribute("data-status", "ok")
    shoot(page, "health")


def test_a_tenants_admin_sees_health_without_positions(page: Any, deployment: Deployment) -> None:
    """A tenant's admin sees the status and stuck projections, never a position or lag
    (they count every tenant's writes), and keeps its admin actions."""
    sign_in(page, deployment.url, deployment.admin)
    sync_api.expect(page.locator("#whoami")).not_to_contain_text("no admin actions")
    go(page, deployment.url, "health")
    sync_api.expect(page.get_by_text("Stuck projections: none")).to_be_visible()
    sync_api.expect(page.locator("[data-log-head]")).to_have_count(0)
    sync_api.expect(page.locator("td.lag")).to_have_count(0)
    page.get_by_role("textbox", name="Scope", exact=True).fill(SUBJECT)
    page.get_by_role("button", name="Show persona and episodes").click()
    sync_api.expect(page.get_by_text("Persona (L3)")).to_be_visible()
    shoot(page, "health-tenant")


def test_activity_follows_the_change_feed_and_shows_the_audit_trail(
    page: Any, deployment: Deployment
) -> None:
    sign_in(page, deployment.url, deployment.admin)
    go(page, deployment.url, "activity")
    sync_api.expect(page.get_by_role("table", name="Audit trail")).to_be_visible()
    page.get_by_role("textbox", name="Scope", exact=True).fill("team:live")
    page.get_by_role("button", name="Follow").click()
    sync_api.expect(page.get_by_role("status").or_(page.locator("p.muted").first)).to_be_visible()
    time.sleep(0.5)  # the long-poll is open
    written = deployment.http.post(
        "/v1/memories?wait=true",
        json={
            "type": "task",
            "content": "Rotate the on-call pager.",
            "scope": "team:live",
            "source_agent": "chat",
        },
    ).json()["record"]["id"]
    sync_api.expect(page.locator(".feed li", has_text=written)).to_be_visible(timeout=30000)
    shoot(page, "activity")
    page.get_by_role("button", name="Stop").click()


def test_a_key_revoked_mid_session_ends_the_session(page: Any, deployment: Deployment) -> None:
    data = deployment.server.log_path.parent / "data"
    doomed = create_key(data, "--tenant", "acme", "--role", "reader")
    sign_in(page, deployment.url, doomed)
    sync_api.expect(page.get_by_role("link", name=BERLIN)).to_be_visible()
    key_id = doomed.split("_")[1]
    deployment.server.cli("keys", "revoke", key_id, "--data-dir", str(data))
    # Running servers refuse a revoked key within AIMEM_KEY_CACHE_SECONDS (5 s); the next
    # refused call ends the session.
    form = page.get_by_label("API key")
    deadline = time.monotonic() + 20
    while not form.is_visible() and time.monotonic() < deadline:
        page.get_by_role("button", name="Apply filters").click()
        page.wait_for_timeout(500)
    sync_api.expect(form).to_be_visible()
    sync_api.expect(page.get_by_role("alert")).to_contain_text("refused")
    assert page.evaluate("sessionStorage.getItem('aimem.console.key')") is None
    sync_api.expect(page.get_by_role("navigation", name="Pages")).to_be_hidden()


def test_a_reader_is_offered_no_admin_action(page: Any, deployment: Deployment) -> None:
    sign_in(page, deployment.url, deployment.reader)
    sync_api.expect(page.locator("#whoami")).to_contain_text("no admin actions")
    go(page, deployment.url, "forgetting")
    sync_api.expect(page.get_by_text("need an admin key")).to_be_visible()
    assert page.get_by_role("button", name="Forget memory").count() == 0
    assert page.get_by_role("button", name="Erase subject").count() == 0
    go(page, deployment.url, f"memory/{deployment.berlin}")  # type: ignore[attr-defined]
    sync_api.expect(page.locator("blockquote.content").first).to_have_text(BERLIN)
    assert page.get_by_role("link", name="Forget this memory…").count() == 0
    go(page, deployment.url, "health")
    sync_api.expect(page.get_by_text("sees only the status")).to_be_visible()
    go(page, deployment.url, "activity")  # the audit trail is not a reader's: said, not broken
    sync_api.expect(page.get_by_role("alert")).to_contain_text("may not")


def test_a_refused_admin_action_is_said_plainly(page: Any, deployment: Deployment) -> None:
    # An operator key sees the health details, so the actions are offered; the API
    # refuses the erasure (an admin key of the tenant only) and the page says so.
    sign_in(page, deployment.url, deployment.operator)
    go(page, deployment.url, "forgetting")
    page.get_by_role("textbox", name="Scope", exact=True).last.fill(SUBJECT)
    page.get_by_label("Type the scope to confirm").fill(SUBJECT)
    page.get_by_role("button", name="Erase subject").click()
    sync_api.expect(page.get_by_role("alert")).to_contain_text("admin key")
    still = deployment.http.get("/v1/memories", params={"scope": SUBJECT}).json()["items"]
    assert any(m["content"] == BERLIN for m in still)


def test_another_tenant_sees_nothing_of_this_one(page: Any, deployment: Deployment) -> None:
    sign_in(page, deployment.url, deployment.stranger)
    sync_api.expect(page.get_by_text("No memories match.")).to_be_visible()
    go(page, deployment.url, "search")
    page.get_by_label("Query").fill(QUERY)
    page.get_by_role("textbox", name="Scope", exact=True).fill(SUBJECT)
    page.get_by_role("button", name="Search").click()
    sync_api.expect(page.get_by_role("status").filter(has_text="0 results")).to_be_visible()
    go(page, deployment.url, f"memory/{deployment.berlin}")  # type: ignore[attr-defined]
    sync_api.expect(page.get_by_role("alert")).to_be_visible()
    go(page, deployment.url, "activity")
    page.get_by_role("textbox", name="Scope", exact=True).fill(SUBJECT)
    page.get_by_label("from the start").check()
    page.get_by_role("button", name="Follow").click()
    time.sleep(1.0)
    body = page.locator("body").inner_text()
    for word in ("Paris", "Berlin", deployment.berlin, deployment.paris):  # type: ignore[attr-defined]
        assert word not in body


def test_keyboard_reaches_the_controls_and_every_input_has_a_label(
    page: Any, deployment: Deployment
) -> None:
    page.goto(f"{deployment.url}/console")
    focused = (
        "document.activeElement.labels?.[0]?.textContent || document.activeElement.textContent"
    )
    sync_api.expect(page.get_by_label("API key")).to_be_focused()  # ready to type
    page.keyboard.press("Tab")
    assert page.evaluate(focused) == "Sign in"
    # The pages' links are not reachable before signing in (hidden, not just dimmed).
    reached = []
    for _ in range(4):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(focused).strip())
    assert not {"Memories", "Search", "Forgetting"} & set(reached), reached
    page.get_by_label("API key").fill(deployment.admin)
    page.keyboard.press("Enter")  # the form submits from the keyboard
    sync_api.expect(page.get_by_role("navigation", name="Pages")).to_be_visible()
    for route, controls in {
        "memories": ["Scope", "Type", "State", "Tag", "Source agent", "Apply filters"],
        "search": ["Query", "Scope", "As of (valid time, UTC)", "Search"],
        "forgetting": ["Erasure id", "Fetch and verify", "Memory id", "Type the scope to confirm"],
        "activity": ["Scope", "Follow"],
        "health": ["Scope", "Show persona and episodes"],
    }.items():
        go(page, deployment.url, route)
        page.locator("main h1").wait_for()
        unlabelled = page.evaluate(
            """[...document.querySelectorAll('input, select, textarea')]
                .filter(e => e.type !== 'hidden' && e.labels.length === 0
                              && !e.getAttribute('aria-label'))
                .map(e => e.outerHTML)"""
        )
        assert unlabelled == [], (route, unlabelled)
        names = set()
        page.locator("body").focus()
        page.evaluate("document.activeElement.blur()")
        for _ in range(60):
            page.keyboard.press("Tab")
            names.add(
                page.evaluate(
                    "(e => e.labels?.[0]?.childNodes[0]?.textContent?.trim() || "
                    "e.textContent.trim())(document.activeElement)"
                )
            )
        missing = [c for c in controls if c not in names]
        assert missing == [], (route, missing, names)


def test_open_development_mode_takes_an_empty_key(browser: Any, tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    try:
        page = browser.new_page()
        page.goto(f"{server.url}/console")
        page.get_by_role("button", name="Sign in").click()
        sync_api.expect(page.locator("#whoami")).to_contain_text("Open development mode")
        sync_api.expect(page.get_by_text("No memories match.")).to_be_visible()
        page.close()
    finally:
        server.stop()


def test_no_content_or_query_in_any_url_or_the_access_log(deployment: Deployment) -> None:
    # Runs last: every URL the browser asked for in the tests above, and the server log.
    assert len(deployment.asked) > 50
    for url in deployment.asked:
        for word in SECRET_WORDS:
            assert word.lower() not in url.lower(), url
        assert deployment.admin not in url
    log = deployment.server.log_path.read_text()
    assert "/console" in log  # the log was written
    for word in SECRET_WORDS:
        assert word not in log, word
    for key in (deployment.admin, deployment.reader, deployment.stranger):
        assert key not in log
