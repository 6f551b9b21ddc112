"""The documentation site builds with warnings as errors, and every page works in a real browser.

The site is built into a temporary folder, served on 127.0.0.1 and visited page by page in
Debian's headless Chromium (through chromedriver and Selenium): each page must load its styles
and scripts without a console error and show its article; every link to a page of the site must
reach a built page, and a link with a ``#fragment`` an element with that id there.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.site import build, navigation

#: as root on a machine without network access: no sandbox, no GPU, no background connections
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1024",
)
PAGE_FACTS = """
return {
  title: document.title,
  article: (document.querySelector('article[role="main"]') || {innerText: ''}).innerText.length,
  styles: Array.from(document.styleSheets).map(s => { try { return s.cssRules.length } catch (e) { return -1 } }),
  links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(out)
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    assert not done.stderr.strip(), done.stderr  # -q prints warnings only
    return out


@pytest.fixture(scope="module")
def served(site) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[webdriver.Chrome]:
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and chromedriver, (
        "the browser check needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver "
        "(scripts/test.sh installs them when run as root)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def test_every_navigation_page_is_built(site):
    missing = [page for page in navigation() if not (site / f"{page}.html").is_file()]
    assert not missing


def test_every_page_renders_and_its_internal_links_resolve(site, served, browser):
    pages = sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*.html") if not p.relative_to(site).parts[0].startswith("_")
    )
    assert len(pages) >= len(navigation())
    ids, links = {}, {}
    for page in pages:
        browser.get(served + page)
        facts = browser.execute_script(PAGE_FACTS)
        errors = [
            e["message"]
            for e in browser.get_log("browser")
            if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
        ]  # the site has no icon
        assert not errors, (page, errors)
        assert facts["title"] and "404" not in facts["title"], page
        assert facts["article"] > 100 or page == "search.html", f"{page}: the article is empty"  # search: see below
        assert facts["styles"] and all(n > 0 for n in facts["styles"]), f"{page}: a stylesheet is missing"
        ids[page] = set(facts["ids"])
        links[page] = [link for link in facts["links"] if link.startswith(served)]
    broken = []
    for page, page_links in links.items():
        for link in page_links:
            url, fragment = urldefrag(link)
            target = urlsplit(url).path.removeprefix("/") or "index.html"
            if target.endswith("/"):
                target += "index.html"
            if not (site / target).is_file():
                broken.append(f"{page} -> {link} (no such file)")
            elif fragment and target in ids and fragment not in ids[target]:
                broken.append(f"{page} -> {link} (no element with id {fragment!r})")
    assert not broken, "\n".join(broken)
    assert sum(map(len, links.values())) > 10 * len(pages)


def test_the_search_finds_a_page(served, browser):
    browser.get(served + "search.html?q=counterexample")
    WebDriverWait(browser, 60).until(lambda b: "Search finished" in b.find_element(By.ID, "search-results").text)
    found = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#search-results li > a")]
    assert any(urlsplit(link).path == "/metrics.html" for link in found), found
