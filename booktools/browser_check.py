"""Open every page of the built book in headless Chromium, with no network, and check it.

Usage (after ``jupyter-book build .``)::

    python -m booktools browser-check                       # every page of _toc.yml, plus index.html
    python -m booktools browser-check --pages book/intro.html book/winnow.html

For each page the check loads ``file://<site>/<page>`` in Chromium, waits for the
load event, for MathJax's startup promise (the initial typeset) and for every
image, then asserts that

* MathJax typeset the maths: on a page with maths (Sphinx's ``.math`` elements)
  MathJax finished its startup typeset, every ``.math`` element holds an
  ``mjx-container``, MathJax reported no TeX error (``mjx-merror``), and no raw TeX
  delimiter (``\\(``, ``\\[``, ``$$``) is left in ``document.body.innerText``;
* every ``<img>`` loaded (``complete && naturalWidth > 0``);
* every saved widget view was drawn from the page's widget state by the HTML manager
  served from the site (``_ext/widget_js.py``): each ``widget-view+json`` script has a
  rendered ``.widget-subarea`` before it;
* nothing was logged as an error: ``console.error``/``console.assert``, uncaught
  exceptions, and the browser's own error log (failed loads, CORS, CSP, ...);
* no request left the site: every URL the page asked for (DevTools Protocol
  ``Network`` domain) is ``file://`` under the site root, ``data:`` or ``blob:``,
  and no local file failed to load.
* axe-core finds no "serious" or "critical" accessibility violation (WCAG 2.1 A and
  AA rules), in the light theme and again in the dark theme. axe-core is the pinned
  npm release (``AXE_URL``, hash-checked, cached like the widget manager); its
  source is evaluated in the page, so it needs no server and no network.

External hosts are unreachable in any case (``--host-resolver-rules`` maps every
host to NOTFOUND and the proxy is a closed local port), so a page that needs the
network is both caught and shown as it would look offline. Every page opens in a
fresh browser context (empty localStorage), as a first-time visitor sees it, and
``--jobs`` pages are checked at once.

A full-page screenshot of each page is saved as ``<out>/<page>.png``, and, on pages
with a figure or a widget, one in the dark theme as ``<out>/<page>-dark.png``. One line of
measured facts is printed per page; the exit status is 1 if any page failed, with
the reasons listed. The browser is driven through the Chrome DevTools Protocol
over a websocket (``websocket-client``), so no browser-automation package is needed.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import websocket  # websocket-client
import yaml

from booktools.book_toc import toc_entries

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TEX_DELIMITERS = ("\\(", "\\[", "$$")
VIEWPORT = (1280, 900)
# Screenshots stop at this height (the longest chapter is about 32,000 px at 1280 px wide).
MAX_SCREENSHOT_HEIGHT = 60000
AXE_URL = "https://registry.npmjs.org/axe-core/-/axe-core-4.14.1.tgz"
AXE_INTEGRITY = ("sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37"
                 "OgudVGtQ==")
AXE_FAILING_IMPACTS = ("serious", "critical")
AXE_RUN_JS = r"""
axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
                   resultTypes: ["violations"],
                   preload: false})  // no XHR for the stylesheets: file:// pages forbid it
  .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" "))})))
"""
DARK_THEME_JS = """(() => { document.documentElement.dataset.theme = "dark";
  document.documentElement.dataset.mode = "dark"; return true; })()"""


def axe_source() -> str:
    """axe.min.js of the pinned axe-core release (from the cache, else from npm)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
    from widget_js import fetch_npm_tarball  # one hash-checked, cached npm download for both

    tarball = fetch_npm_tarball(AXE_URL, AXE_INTEGRITY, None, "browser_check",
                                "The accessibility check needs axe-core")
    with tarfile.open(tarball, "r:gz") as archive:
        return archive.extractfile("package/axe.min.js").read().decode("utf-8")


def find_browser(explicit: str | None = None) -> str | None:
    """The browser executable: ``explicit``, $CHROMIUM, or the first of BROWSERS on PATH."""
    for name in (explicit, os.environ.get("CHROMIUM"), *BROWSERS):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


def toc_pages(toc: Path) -> list[str]:
    """``index.html`` plus the HTML page of the root and of every ``file:`` entry of a _toc.yml."""
    pages = ["index.html"]
    for entry in toc_entries(yaml.safe_load(toc.read_text(encoding="utf-8"))):
        page = str(Path(entry).with_suffix("")) + ".html"
        if page not in pages:
            pages.append(page)
    return pages


# --------------------------------------------------------------------------- the browser


class CDPError(RuntimeError):
    pass


class Connection:
    """One DevTools Protocol websocket: send commands, wait for their answers, dispatch events."""

    def __init__(self, url: str, timeout: float = 30.0):
        # suppress_origin: Chromium refuses DevTools websockets that carry an Origin header.
        self.ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True)
        self._next_id = 0
        self.on_event = None  # callback(method, params)

    def _dispatch(self, message: dict):
        if self.on_event is not None and "method" in message:
            self.on_event(message["method"], message.get("params", {}))

    def call(self, method: str, params: dict | None = None, timeout: float = 30.0) -> dict:
        self._next_id += 1
        msg_id = self._next_id
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{method}: no answer within {timeout:.0f} s")
            self.ws.settimeout(remaining)
            try:
                reply = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"{method}: no answer within {timeout:.0f} s") from None
            if reply.get("id") == msg_id:
                if "error" in reply:
                    err = reply["error"]
                    raise CDPError(f"{method}: {err.get('message')} {err.get('data', '')}".strip())
                return reply.get("result", {})
            self._dispatch(reply)

    def pump(self, seconds: float):
        """Receive and dispatch events for ``seconds``."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            self.ws.settimeout(remaining)
            try:
                self._dispatch(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                return

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


class Browser:
    """A headless Chromium that cannot reach the network, driven over the DevTools Protocol."""

    def __init__(self, executable: str, timeout: float = 30.0):
        self.profile = tempfile.mkdtemp(prefix="browser-check-")
        args = [
            executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-port=0",
            f"--user-data-dir={self.profile}",
            # Nothing may reach the network: every host resolves to NOTFOUND, and
            # whatever bypasses the resolver meets a proxy on a closed local port.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=http://127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-sync",
            "--no-default-browser-check",
            "--no-first-run",
            "--mute-audio",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.conn = None
        self.lock = threading.Lock()  # the browser connection is shared by the page workers
        try:
            port_file = Path(self.profile) / "DevToolsActivePort"
            deadline = time.monotonic() + timeout
            while True:
                if port_file.exists():
                    lines = port_file.read_text().split()
                    if len(lines) >= 2:
                        break
                if self.proc.poll() is not None:
                    err = self.proc.stderr.read().decode(errors="replace")[-2000:]
                    raise CDPError(f"{executable} exited with status {self.proc.returncode}: {err}")
                if time.monotonic() > deadline:
                    raise CDPError(f"{executable} did not open its DevTools port within {timeout:.0f} s")
                time.sleep(0.05)
            self.port = int(lines[0])
            self.conn = Connection(f"ws://127.0.0.1:{self.port}{lines[1]}", timeout)
        except BaseException:
            self.close()
            raise
        # stderr is not read any more: let the OS discard it rather than fill a pipe.
        self.proc.stderr.close()

    def open_page(self) -> tuple[str, str, Connection]:
        """A blank tab in a fresh browser context (no cookies or storage: a first-time visitor)."""
        with self.lock:
            context = self.conn.call("Target.createBrowserContext")["browserContextId"]
            target = self.conn.call("Target.createTarget", {"url": "about:blank", "browserContextId": context})["targetId"]
        return context, target, Connection(f"ws://127.0.0.1:{self.port}/devtools/page/{target}")

    def close_page(self, context: str, target: str):
        with self.lock:
            for method, params in (("Target.closeTarget", {"targetId": target}),
                                   ("Target.disposeBrowserContext", {"browserContextId": context})):
                try:
                    self.conn.call(method, params)
                except (CDPError, TimeoutError):
                    pass

    def close(self):
        if self.conn is not None:
            self.conn.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------- one page

# Runs in the page: wait for the load event, MathJax's initial typeset, fonts and images.
SETTLE_JS = r"""
(async (timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = (p) => Promise.race([p, sleep(Math.max(0, deadline - Date.now()))]);
  while (document.readyState !== "complete" && Date.now() < deadline) await sleep(25);
  const refresh = document.querySelector('meta[http-equiv="refresh" i]');
  if (refresh) return {refresh: refresh.getAttribute("content")};
  const mathjaxScript = [...document.scripts].some((s) => /mathjax/i.test(s.src));
  let mathjax = "absent";
  if (mathjaxScript) {
    const ready = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
    while (!ready() && Date.now() < deadline) await sleep(25);
    if (ready()) {
      let settled = false;
      await until(MathJax.startup.promise.then(() => { settled = true; }, (e) => { settled = "rejected: " + e; }));
      mathjax = settled === true ? "typeset" : settled || "timed out";
    } else {
      mathjax = "never started";
    }
  }
  const images = [...document.images];
  for (const img of images) if (img.loading === "lazy") img.loading = "eager";
  await until(Promise.all(images.map((img) => img.complete ? null : new Promise((r) => {
    img.addEventListener("load", r, {once: true});
    img.addEventListener("error", r, {once: true});
  }))));
  // Widgets: the HTML manager replaces each saved view (a widget-view+json script) with a
  // rendered .widget-subarea just before it, after the load event.
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const drawn = (v) => v.previousElementSibling && v.previousElementSibling.matches(".widget-subarea")
    && v.previousElementSibling.querySelector(".jupyter-widgets");
  while (views.some((v) => !drawn(v)) && Date.now() < deadline) await sleep(25);
  if (document.fonts) await until(document.fonts.ready);
  return {mathjax};
})
"""

# Runs in the page once it has settled: the measured facts.
FACTS_JS = r"""
(() => {
  const text = document.body ? document.body.innerText : "";
  const rawTex = [];
  for (const d of %s) {
    const i = text.indexOf(d);
    if (i >= 0) rawTex.push({delimiter: d, context: text.slice(Math.max(0, i - 40), i + 40)});
  }
  const maths = [...document.querySelectorAll(".math")];
  return {
    url: location.href,
    title: document.title,
    mathjaxVersion: (window.MathJax && MathJax.version) || null,
    mjx: document.querySelectorAll("mjx-container").length,
    mathSources: maths.length,
    untypeset: maths.filter((e) => !e.querySelector("mjx-container")).map((e) => e.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll("mjx-merror")].map((e) =>
      e.getAttribute("data-mjx-error") || e.textContent.slice(0, 80)),
    rawTex,
    widgetViews: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    widgetsDrawn: [...document.querySelectorAll(".widget-subarea")].filter((e) => e.querySelector(".jupyter-widgets")).length,
    widgetControls: document.querySelectorAll(".widget-subarea .widget-slider, .widget-subarea .widget-dropdown, .widget-subarea .widget-button").length,
    images: [...document.images].map((img) => ({
      src: img.getAttribute("src") || "", url: img.currentSrc || img.src,
      ok: img.complete && img.naturalWidth > 0,
    })),
  };
})()
""" % json.dumps(list(TEX_DELIMITERS))


@dataclass
class PageResult:
    page: str
    url: str = ""
    final_url: str = ""
    seconds: float = 0.0
    mathjax: str = ""
    mjx: int = 0
    math_sources: int = 0
    untypeset: list = field(default_factory=list)
    math_errors: list = field(default_factory=list)
    raw_tex: list = field(default_factory=list)
    widget_views: int = 0
    widgets_drawn: int = 0
    widget_controls: int = 0
    images: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)
    requests: list = field(default_factory=list)
    external_requests: list = field(default_factory=list)
    failed_requests: list = field(default_factory=list)
    screenshot: str = ""
    axe_violations: dict = field(default_factory=dict)  # theme -> violations of every impact
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def broken_images(self) -> list:
        return [img for img in self.images if not img["ok"]]

    def line(self) -> str:
        maths = f"maths {self.mjx} mjx-container" + (f"/{self.math_sources} .math" if self.math_sources else "")
        if self.mathjax == "absent":
            maths = "maths n/a (no MathJax on the page)"
        elif not self.mathjax:
            maths = "maths not measured"
        images = f"images {len(self.images) - len(self.broken_images)}/{len(self.images)} ok"
        parts = [
            f"{'ok  ' if self.ok else 'FAIL'} {self.page}",
            maths,
            images,
        ]
        if self.widget_views:
            parts.append(f"widgets {self.widgets_drawn}/{self.widget_views} drawn ({self.widget_controls} controls)")
        if self.axe_violations:
            serious = sum(1 for vs in self.axe_violations.values() for v in vs if v["impact"] in AXE_FAILING_IMPACTS)
            others = sum(len(vs) for vs in self.axe_violations.values()) - serious
            parts.append(f"axe {serious} serious/critical, {others} minor ({'+'.join(self.axe_violations)})")
        parts += [
            f"console errors {len(self.console_errors)}",
            f"requests {len(self.requests)} ({len(self.external_requests)} external)",
            f"{self.seconds:.1f} s",
        ]
        if self.final_url and self.final_url != self.url:
            parts.insert(1, f"(redirected to {self.final_url})")
        return ", ".join(parts)


def _allowed(url: str, root_uri: str) -> bool:
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("data", "blob"):
        return True
    if scheme == "file":
        # Compare normalised paths so that "../" tricks cannot escape the root.
        path = os.path.normpath(unquote(urlsplit(url).path))
        root = os.path.normpath(unquote(urlsplit(root_uri).path))
        return path == root or path.startswith(root.rstrip("/") + "/")
    return False


def check_page(browser: Browser, site: Path, page: str, out: Path | None, timeout: float,
               axe: str | None = None) -> PageResult:
    start = time.monotonic()
    root_uri = site.as_uri()
    result = PageResult(page=page, url=f"{root_uri}/{page}")
    seen_console: set = set()
    request_urls: dict = {}  # requestId -> url, to name failed requests

    def add_console(text: str):
        if text not in seen_console:
            seen_console.add(text)
            result.console_errors.append(text)

    def on_event(method: str, params: dict):
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            request_urls[params["requestId"]] = url
            result.requests.append(url)
            if not _allowed(url, root_uri):
                result.external_requests.append(url)
        elif method == "Network.webSocketCreated":
            result.requests.append(params["url"])
            result.external_requests.append(params["url"])
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            result.failed_requests.append({"requestId": params["requestId"], "error": params.get("errorText", "")})
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = params.get("args", [])
            text = " ".join(str(a.get("value", a.get("description", a.get("type")))) for a in args)
            add_console(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            exc = d.get("exception", {})
            text = exc.get("description") or exc.get("value") or d.get("text", "exception")
            add_console(f"uncaught {text.splitlines()[0]} ({d.get('url', '')}:{d.get('lineNumber', 0) + 1})")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            e = params["entry"]
            add_console(f"{e.get('source', 'log')}: {e.get('text', '')} {e.get('url', '')}".strip())
        elif method == "Page.frameNavigated" and not params["frame"].get("parentId"):
            result.final_url = params["frame"]["url"]

    context, target, conn = browser.open_page()
    conn.on_event = on_event
    try:
        for domain in ("Page", "Network", "Runtime", "Log"):
            conn.call(f"{domain}.enable")
        conn.call("Network.setCacheDisabled", {"cacheDisabled": True})
        conn.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False},
        )
        nav = conn.call("Page.navigate", {"url": result.url}, timeout=timeout)
        if nav.get("errorText"):
            result.failures.append(f"page did not load: {nav['errorText']}")
            return result

        deadline = start + timeout
        settled = None
        while time.monotonic() < deadline:
            remaining = max(1.0, deadline - time.monotonic())
            try:
                r = conn.call(
                    "Runtime.evaluate",
                    {"expression": f"{SETTLE_JS}({int(remaining * 1000)})", "awaitPromise": True, "returnByValue": True},
                    timeout=remaining + 5,
                )
            except CDPError as e:  # the page navigated away while we waited: settle the new one
                if "context" in str(e).lower() or "navigat" in str(e).lower():
                    conn.pump(0.2)
                    continue
                raise
            if "exceptionDetails" in r:
                raise CDPError(f"settle script failed: {r['exceptionDetails']}")
            value = r["result"].get("value") or {}
            if "refresh" in value:  # e.g. index.html, a <meta http-equiv="refresh">: follow it
                conn.pump(0.3)
                continue
            settled = value
            break
        if settled is None:
            result.failures.append(f"page did not settle within {timeout:.0f} s")
            return result
        result.mathjax = settled["mathjax"]

        facts = conn.call("Runtime.evaluate", {"expression": FACTS_JS, "returnByValue": True})["result"]["value"]
        result.final_url = facts["url"]
        result.mjx = facts["mjx"]
        result.math_sources = facts["mathSources"]
        result.untypeset = facts["untypeset"]
        result.math_errors = facts["mathErrors"]
        result.raw_tex = facts["rawTex"]
        result.images = facts["images"]
        result.widget_views = facts["widgetViews"]
        result.widgets_drawn = facts["widgetsDrawn"]
        result.widget_controls = facts["widgetControls"]

        if out is not None:
            result.screenshot = _screenshot(conn, out / (str(Path(page).with_suffix("")) + ".png"))
        if axe is not None:
            conn.call("Runtime.evaluate", {"expression": axe})
            for theme in ("light", "dark"):
                if theme == "dark":
                    conn.call("Runtime.evaluate", {"expression": DARK_THEME_JS})
                    conn.pump(0.2)
                    # a dark screenshot where there is something to see in it: a figure or a widget
                    if out is not None and (result.images or result.widget_views):
                        _screenshot(conn, out / (str(Path(page).with_suffix("")) + "-dark.png"))
                found = conn.call("Runtime.evaluate", {"expression": AXE_RUN_JS, "awaitPromise": True,
                                                       "returnByValue": True}, timeout=timeout)
                if "exceptionDetails" in found:
                    raise CDPError(f"axe-core failed: {found['exceptionDetails']}")
                result.axe_violations[theme] = found["result"]["value"]
        conn.pump(0.05)  # late console messages and request failures
    finally:
        conn.close()
        browser.close_page(context, target)
        result.failed_requests = [
            {"url": request_urls.get(f["requestId"], f["requestId"]), "error": f["error"]}
            for f in result.failed_requests
        ]
        _judge(result, root_uri)
        result.seconds = time.monotonic() - start
    return result


def _screenshot(conn: Connection, path: Path) -> str:
    metrics = conn.call("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    width = max(VIEWPORT[0], int(size["width"]))
    height = min(MAX_SCREENSHOT_HEIGHT, max(VIEWPORT[1], int(size["height"])))
    shot = conn.call(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "optimizeForSpeed": True,  # faster PNG encoding, about 20% larger files
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        },
        timeout=120,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    return str(path)


def _judge(r: PageResult, root_uri: str):
    f = r.failures
    if r.final_url and not _allowed(r.final_url, root_uri):
        f.append(f"the page ended up outside the site: {r.final_url}")
    if r.mathjax not in ("", "typeset", "absent"):  # "": the page never settled (reported already)
        f.append(f"MathJax {r.mathjax}")
    if r.math_sources and r.mathjax == "absent":
        f.append(f"{r.math_sources} maths elements but no MathJax on the page")
    if r.math_sources and r.mathjax not in ("", "absent") and r.mjx == 0:
        f.append(f"{r.math_sources} maths elements but MathJax produced no mjx-container")
    if r.untypeset:
        f.append(f"{len(r.untypeset)} maths elements not typeset, e.g. {r.untypeset[0]!r}")
    if r.math_errors:
        f.append(f"{len(r.math_errors)} MathJax errors: {r.math_errors[:3]}")
    for raw in r.raw_tex:
        f.append(f"raw TeX {raw['delimiter']} visible: ...{raw['context']!r}...")
    if r.widgets_drawn < r.widget_views:
        f.append(f"{r.widget_views - r.widgets_drawn} of {r.widget_views} saved widget views not drawn "
                 "(is the widget manager, _static/widgets/embed.js, on the page?)")
    for img in r.broken_images:
        f.append(f"image not loaded: {img['src']}")
    for msg in r.console_errors:
        f.append(f"console error: {msg}")
    for theme, violations in r.axe_violations.items():
        for v in violations:
            if v["impact"] in AXE_FAILING_IMPACTS:
                f.append(f"axe ({theme} theme): {v['id']} ({v['impact']}) on {v['nodes']} elements: "
                         f"{v['help']}; e.g. {v['targets']}")
    for url in r.external_requests:
        f.append(f"request left the site: {url}")
    for failed in r.failed_requests:  # (failed external requests are reported above)
        if failed["url"].startswith("file:"):
            f.append(f"local file failed to load: {failed['url']} ({failed['error']})")


def check_site(site, pages, out=None, timeout: float = 30.0, browser: str | None = None, jobs: int = 0, log=None,
               accessibility: bool = True):
    """Check ``pages`` (paths relative to ``site``) in one browser, ``jobs`` tabs at a time.

    With ``accessibility`` (the default) axe-core runs on every page, in both themes.
    Returns a PageResult per page, in the order of ``pages``.
    """
    axe = axe_source() if accessibility else None
    site = Path(site).absolute()
    out = Path(out).absolute() if out is not None else None
    executable = find_browser(browser)
    if executable is None:
        raise FileNotFoundError(f"no Chromium found (tried {', '.join(BROWSERS)}; set $CHROMIUM)")
    jobs = jobs or min(4, os.cpu_count() or 1)

    with Browser(executable) as b:
        def one(page):
            try:
                r = check_page(b, site, page, out, timeout, axe)
            except (CDPError, TimeoutError, OSError, websocket.WebSocketException) as e:
                r = PageResult(page=page, url=f"{site.as_uri()}/{page}", failures=[f"browser error: {e}"])
            if log is not None:
                log(r.line())
            return r

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, pages))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", default="_build/html", help="the built HTML site (default: _build/html)")
    parser.add_argument("--out", default="_build/screenshots", help="where to save screenshots (default: _build/screenshots)")
    parser.add_argument("--pages", nargs="+", help="pages relative to --site (default: index.html and every page of the TOC)")
    parser.add_argument("--toc", help="the _toc.yml to take pages from (default: _toc.yml next to _build, else ./_toc.yml)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed per page (default: 30)")
    parser.add_argument("--browser", help="Chromium executable (default: $CHROMIUM, else chromium on PATH)")
    parser.add_argument("--jobs", type=int, default=0, help="pages checked at once (default: CPUs, at most 4)")
    parser.add_argument("--json", help="also write every page's facts to this JSON file")
    parser.add_argument("--no-axe", action="store_true", help="skip the axe-core accessibility check")
    args = parser.parse_args(argv)

    site = Path(args.site)
    if not (site / "index.html").exists() and not args.pages:
        parser.error(f"{site}/index.html not found: build the book first")
    pages = args.pages
    if not pages:
        candidates = [Path(args.toc)] if args.toc else [site.absolute().parents[1] / "_toc.yml", Path("_toc.yml")]
        toc = next((c for c in candidates if c.exists()), None)
        if toc is None:
            parser.error("no _toc.yml found: pass --toc or --pages")
        pages = toc_pages(toc)

    start = time.monotonic()
    try:
        results = check_site(site, pages, args.out, args.timeout, args.browser, args.jobs,
                             log=lambda s: print(s, flush=True), accessibility=not args.no_axe)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = [r for r in results if not r.ok]
    print(f"{len(results)} pages checked in {time.monotonic() - start:.1f} s, {len(failed)} failed; screenshots in {args.out}")
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in results], indent=1))
    for r in failed:
        print(f"\n{r.page}:")
        for reason in r.failures:
            print(f"  - {reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
