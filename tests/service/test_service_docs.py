"""The API documentation works offline: ``/docs`` (Swagger UI) and ``/redoc`` are served
with their assets from the installed fastapi-offline package, reference no external URL,
and in Chromium every request they make goes to the service itself; the favicon route."""

from __future__ import annotations

import os
import re
import shutil

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
pytest.importorskip("fastapi_offline", reason="the bots extra serves the docs offline")

from tests.helpers.service import served  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
CHROMIUM = os.environ.get("CANASTA_CHROMIUM", "/usr/bin/chromium")
#: any absolute or protocol-relative URL
EXTERNAL = re.compile(r"(?i)\b(?:https?:)?//[a-z0-9.-]+")


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_docs_pages_reference_no_external_url(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert not EXTERNAL.search(html), EXTERNAL.search(html)
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert refs and all(ref.startswith("/") and not ref.startswith("//") for ref in refs), refs
    for ref in refs:  # every asset is served by the service itself
        asset = client.get(ref)
        assert asset.status_code == 200 and len(asset.content) > 100, ref
    assert "/openapi.json" in html
    if path == "/docs":
        assert '"validatorUrl": null' in html  # Swagger UI's online validator is off
        assert client.get("/docs/oauth2-redirect").status_code == 200


def test_the_favicon_is_served(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.content.startswith(b"<svg") and b"http://www.w3.org/2000/svg" in r.content
    assert "/favicon.ico" not in client.get("/openapi.json").json()["paths"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory)


def test_docs_in_chromium_request_nothing_outside_the_service(server):
    """Swagger UI and ReDoc render in Chromium and every request they make goes to the
    service (ReDoc's sidebar logo from its maker's CDN is refused by the page's
    Content-Security-Policy before it is requested)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", pytrace=False)
    seen: list[str] = []
    blocked: dict[str, str] = {}
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            page = browser.new_page()
            page.on("request", lambda req: seen.append(req.url))
            page.on("requestfailed", lambda req: blocked.update({req.url: req.failure}))
            for path in ("/docs", "/redoc"):
                response = page.goto(f"{server}{path}")
                assert "default-src 'self'" in response.headers["content-security-policy"]
                page.wait_for_selector("text=Start a game", timeout=30_000)
        finally:
            browser.close()
    outside = [u for u in seen if not u.startswith((server, "data:", "blob:"))]
    # a request the page's policy refuses never leaves the browser
    assert all(blocked.get(u) == "csp" for u in outside), (outside, blocked)
    assert f"{server}/openapi.json" in seen
    assert f"{server}/docs-assets/swagger-ui-bundle.js" in seen
    assert f"{server}/docs-assets/redoc.standalone.js" in seen
