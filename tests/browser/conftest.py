"""Fixtures for end-to-end tests: a Streamlit server on loopback and Debian's headless Chromium.

The tests fail (never skip) when the browser is missing; as root the session installs Debian's
``chromium`` first, as .ci/run does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
DEFAULT_WAIT_MS = 90_000
SHOTS = ROOT / "tests" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def ensure_debian_package(path: str, package: str) -> None:
    """Fail (never skip) unless ``path`` exists; as root, install Debian's ``package`` first."""
    if Path(path).exists():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True, env=env)
    if not Path(path).exists():
        pytest.fail(f"{path} is missing: install Debian's {package} (apt-get install {package})")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Return once ``url``/_stcore/health answers ok; else kill ``proc`` and fail with the end of
    its ``log`` (at once when it exits, after a minute when it hangs)."""
    end = time.time() + 60
    while time.time() < end and proc.poll() is None:
        with contextlib.suppress(OSError):
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return
        time.sleep(0.3)
    proc.kill()
    pytest.fail(f"{url} did not become healthy: {log.read_text()[-3000:]}")


# `streamlit run`, with every thread's stack written to the log on SIGUSR1: what a hung session
# waits on (Served.report)
_STREAMLIT = ("import faulthandler, logging, signal;"
              " faulthandler.register(signal.SIGUSR1, all_threads=True);"
              # the app's own events (explorer.lecture's) in the log a failure's report ends
              " logging.basicConfig(format='%(asctime)s %(name)s: %(message)s');"
              " logging.getLogger('explorer').setLevel(logging.INFO);"
              " from streamlit.web.cli import main; main(prog_name='streamlit')")


class Served(str):
    """A served app's base URL, with the server's ``proc`` and ``log``."""

    proc: subprocess.Popen
    log: Path

    def report(self) -> str:
        """The end of the server's log (an exception's traceback), then its threads' stacks."""
        before = self.log.read_text()
        if self.proc.poll() is not None:
            return f"{before[-8000:]}\n(exited {self.proc.returncode})"
        self.proc.send_signal(signal.SIGUSR1)
        time.sleep(1)
        stacks = self.log.read_text()[len(before):]
        return f"{before[-6000:]}\n--- its threads\n{_busy(stacks)[-8000:]}"


# a thread whose stack passes through these runs the app's code or a session's script
_BUSY = ("scriptrunner", "/explorer/", "/landing_core/", "/pages/", "app.py")


def _busy(stacks: str) -> str:
    """The threads of a faulthandler dump that run a script or the app's code, and how many
    others there were (idle pools and watchers, which would push the busy ones out of a
    truncated report)."""
    threads = [t for t in stacks.split("\n\n") if t.strip()]
    busy = [t for t in threads if any(mark in t for mark in _BUSY)]
    return "\n\n".join(busy + [f"({len(threads) - len(busy)} other threads, idle or "
                                 "Streamlit's own, left out)"])


@contextlib.contextmanager
def _serve(log: Path) -> Iterator[Served]:
    """Serve the app on a free loopback port; yield its base URL once healthy."""
    port = free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", _STREAMLIT, "run", str(ROOT / "app.py"),
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--server.headless", "true", "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    url = Served(f"http://127.0.0.1:{port}")
    url.proc, url.log = proc, log
    wait_healthy(url, proc, log)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app, shared by the tests; yields its base URL."""
    with _serve(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


@pytest.fixture
def fresh_server(tmp_path):
    """A server no browser has visited yet (Streamlit keeps process-wide page state)."""
    with _serve(tmp_path / "server.log") as url:
        yield url


def _patient(context):
    """``context`` with waits that outlast a loaded runner: Playwright's 30 s default for a
    navigation or a wait without its own timeout is too short there (a shared 2-core machine
    took longer to load a page); a wait ends when the page is ready, so a quiet run pays
    nothing for it."""
    context.set_default_timeout(DEFAULT_WAIT_MS)
    context.set_default_navigation_timeout(DEFAULT_WAIT_MS)
    return context


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """Chromium for contexts of their own (``browser.new_context``: cookies, offline mode),
    and ``browser.profile``: one context on a profile directory that the pages of
    ``open_page`` share.

    A context of its own starts with an empty cache: each page load compiled Streamlit's
    JavaScript bundle again (~4 s of CPU on this machine). A context on a profile directory
    keeps V8's code cache beside its HTTP cache, so a load after the first skips most of it;
    an incognito context, even shared, keeps no code cache.
    """
    ensure_debian_package(CHROMIUM, "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        new_context = b.new_context
        b.new_context = lambda **options: _patient(new_context(**options))
        b.profile = _patient(pw.chromium.launch_persistent_context(
            tmp_path_factory.mktemp("chromium-profile"), executable_path=CHROMIUM,
            args=CHROMIUM_ARGS))
        yield b
        b.profile.close()
        b.close()


def _where(message) -> str:
    """A console error with the script and line that logged it (a failure's report then points
    at the code, not only the message)."""
    at = message.location
    return f"{message.text} ({at.get('url', '?')}:{at.get('lineNumber', '?')})"


# the page's last script runs, clicks and messages to the server, for a failure's report (a
# lost click and a click whose run ended early read alike in the text the page shows)
TIMELINE_JS = r"""(() => { if (window.top !== window) return;
  const t0 = performance.now(), log = window.__timeline = [];
  const note = (what) => { log.push(((performance.now() - t0) / 1000).toFixed(2) + " " + what);
                           if (log.length > 80) log.shift(); };
  document.addEventListener("click", (e) => { const b = e.target.closest("button");
    note("click " + (b ? b.innerText : e.target.tagName).replace(/\s+/g, " ").slice(0, 40));
  }, true);
  new MutationObserver((records) => records.forEach((r) => note("script "
      + r.target.getAttribute("data-test-script-state"))))
    .observe(document, { subtree: true, attributeFilter: ["data-test-script-state"] });
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { note("sent " + (data.byteLength ?? data.length));
                                               return send.call(this, data); };
})()"""


@contextlib.contextmanager
def open_page(browser, width: int, height: int):
    """A new page (a tab of ``browser.profile``: its own Streamlit session, and the cached
    JavaScript of the pages before it) at ``width`` × ``height``, collecting console errors
    in ``page.console_errors``; it closes on exit. Tests that need a context of their own
    (cookies, offline) open one with ``browser.new_context``."""
    pg = browser.profile.new_page()
    pg.add_init_script(TIMELINE_JS)
    pg.set_viewport_size({"width": width, "height": height})
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(_where(m)) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(f"{e}\n{e.stack}"))
    try:
        yield pg
    except BaseException as failure:
        # the page closes here, before pytest's report hook could describe it (as it does for
        # the ``page`` fixture's): its state goes with the failure, which CI prints
        with contextlib.suppress(Exception):
            failure.add_note(f"--- the page it failed on\n{_shown(pg)}")
        raise
    finally:
        pg.close()


@pytest.fixture
def page(browser):
    """A fresh page (tall viewport: Streamlit scrolls internally) collecting console errors."""
    with open_page(browser, 1500, 2400) as pg:
        yield pg


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


def _shown(pg) -> str:
    """What a page showed: its URL, its script's state and connection (Streamlit's marks on
    its root element), the text of its main area and its timeline (``TIMELINE_JS``)."""
    app = pg.locator('[data-testid="stApp"]')
    state = {name: app.get_attribute(name, timeout=5_000)
             for name in ("data-test-script-state", "data-test-connection-state")}
    main = pg.locator('[data-testid="stMain"]').inner_text(timeout=5_000)
    timeline = "\n".join(pg.evaluate("window.__timeline || []"))
    return (f"{pg.url}\n{state}\n{main[:4000]}\n"
            f"--- its last runs, clicks and messages (s)\n{timeline}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failed browser test, a screenshot of its page in tests/screenshots/failures/: a
    timeout's message names the locator, never what the page showed instead; and the end of
    its server's log with the server's threads (an exception in the app shows only there)."""
    report = yield
    funcargs = getattr(item, "funcargs", {})
    if report.failed and call.when == "call":
        for name in ("server", "fresh_server"):
            if isinstance(funcargs.get(name), Served):
                with contextlib.suppress(Exception):
                    report.sections.append((f"{name} log", funcargs[name].report()))
    pg = funcargs.get("page")
    if report.failed and call.when == "call" and pg is not None and not pg.is_closed():
        folder = SHOTS / "failures"
        folder.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in item.name)
        with contextlib.suppress(Exception):  # a crashed page must not hide the failure
            pg.screenshot(path=folder / f"{name}.png")
        with contextlib.suppress(Exception):  # CI keeps the report, not the screenshot
            report.sections.append(("page", _shown(pg)))
    return report
