"""deploy/: two app processes (started by deploy/run-app.sh) behind nginx with deploy/nginx.conf
on loopback; browser sessions through the proxy each stay on one replica (websocket included)
and complete a Run. nginx is Debian's package: installed here as root (as .ci/run does),
else the test fails."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest

from .conftest import ROOT, ensure_debian_package, free_port, wait_healthy
from .helpers import IDLE, player

pytestmark = pytest.mark.browser

NGINX = "/usr/sbin/nginx"
# $upstream_addr lists every replica nginx tried ("a, b" after a failover)
LOG_LINE = re.compile(r'"(?P<request>[^"]*)" (?P<status>\d+) route=(?P<route>\S*) '
                      r"upstream=(?P<upstream>.*)$")


def _proxy_config(tmp: Path, port: int, replicas: list[int]) -> Path:
    """deploy/nginx.conf with loopback addresses, and logs and temporary files under tmp."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    failover = re.search(r"        server \S+:8501([^;\n]*);", text)[1]  # max_fails=...
    servers = "".join(f"        server 127.0.0.1:{p}{failover};\n" for p in replicas)
    text, count = re.subn(r"(        server \S+:8501[^;\n]*;\n)+", servers, text)
    assert count == 1, "deploy/nginx.conf: the upstream's server lines were not found"
    text = text.replace("listen 80;", f"listen 127.0.0.1:{port};")
    text = text.replace("include mime.types;", "include /etc/nginx/mime.types;")
    text = text.replace("/var/log/nginx/access.log", str(tmp / "access.log"))
    temps = "".join(f"    {name}_temp_path {tmp / name};\n"
                    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {\n", "http {\n" + temps, 1)
    conf = tmp / "nginx.conf"
    conf.write_text(text)
    return conf


def _replica(port: int, log: Path) -> subprocess.Popen:
    """One app process on loopback, started by deploy/run-app.sh, its output in ``log``."""
    env = dict(os.environ, PYTHON=sys.executable)
    env.pop("OPENBLAS_NUM_THREADS", None)  # the launcher sets it
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(ROOT / "deploy" / "run-app.sh"), str(port), "--server.address", "127.0.0.1",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """Two replicas behind nginx: yields (proxy URL, access log, replica addresses, replica
    processes). Shared by the module's tests (starting them took 5-7 s a test): the failover
    test, which kills a replica, comes last, and the others look only at their own routes in
    the access log."""
    ensure_debian_package(NGINX, "nginx")
    tmp_path = tmp_path_factory.mktemp("proxy")
    tmp_path.chmod(0o777)  # nginx's workers run as an unprivileged user when started as root
    ports = [free_port(), free_port()]
    logs = [tmp_path / f"app-{port}.log" for port in ports]
    procs = [_replica(port, log) for port, log in zip(ports, logs, strict=True)]
    with contextlib.ExitStack() as stack:
        for port, proc, log in zip(ports, procs, logs, strict=True):
            stack.callback(lambda p=proc: (p.terminate(), p.wait(timeout=10)))
            wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        port = free_port()
        conf = _proxy_config(tmp_path, port, ports)
        nginx = subprocess.Popen(
            [NGINX, "-c", str(conf), "-p", str(tmp_path), "-g",
             f"daemon off; pid {tmp_path / 'nginx.pid'}; error_log {tmp_path / 'error.log'};"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        stack.callback(lambda: (nginx.terminate(), nginx.wait(timeout=10)))
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, nginx, tmp_path / "error.log")
        yield url, tmp_path / "access.log", [f"127.0.0.1:{p}" for p in ports], procs


def _routes(log: Path, status: bool = False) -> dict[str, list[tuple[str, ...]]]:
    """route -> [(request, upstream)] (and the status) from the proxy's access log."""
    seen = defaultdict(list)
    for line in log.read_text().splitlines():
        m = LOG_LINE.search(line)
        if m:
            seen[m["route"]].append((m["request"], m["upstream"], *[m["status"]] * status))
    return seen


def _probe(url: str, log: Path) -> dict[str, str]:
    """route -> the replica it lands on (consistent hashing), for 16 probe routes."""
    for i in range(16):
        request = urllib.request.Request(f"{url}/_stcore/health",
                                         headers={"Cookie": f"landing_route=probe{i}"})
        assert urllib.request.urlopen(request, timeout=5).read() == b"ok"
    time.sleep(0.2)
    return {route: hops[0][1] for route, hops in _routes(log).items()
            if route.startswith("probe")}


def _open(browser, url: str, route: str | None = None):
    """A new browser (its route set by nginx, or ``route``) on the explorer: (context, page)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1400})
    if route is not None:
        host = url.removeprefix("http://").split(":")[0]
        context.add_cookies([{"name": "landing_route", "value": route, "domain": host,
                              "path": "/"}])
    page = context.new_page()
    page.goto(f"{url}/?max_iter=60&tol=1e-14&seed=3")
    return context, page


def test_sessions_through_the_proxy_stay_on_one_replica_and_run(proxy, browser):
    url, log, replicas, _ = proxy
    landing = _probe(url, log)  # two routes per replica
    chosen = {r: [k for k, v in landing.items() if v == r][:2] for r in replicas}
    assert all(len(keys) == 2 for keys in chosen.values()), landing
    routes = [k for keys in chosen.values() for k in keys]

    contexts = []
    for route in [*routes, None]:  # the last one: a new browser, its route set by nginx
        contexts.append((route, *_open(browser, url, route)))
    for route, context, page in contexts:
        frame = player(page)
        frame.get_by_role("button", name="Run", exact=True).click()
        frame.wait_for_function("landingPlayer.status.textContent.startsWith('Reached the "
                                "iteration limit (60)')", timeout=30_000)
        if route is None:
            cookie = [c for c in context.cookies() if c["name"] == "landing_route"]
            assert len(cookie) == 1 and cookie[0]["value"]
            routes.append(cookie[0]["value"])
    for _, context, _ in contexts:
        context.close()  # the websockets end: nginx logs them now
    time.sleep(1.0)
    seen = _routes(log)
    for route in routes:
        hops = seen[route]
        upstreams = {up for _, up in hops}  # one address each: no request was passed on
        assert len(upstreams) == 1, (route, upstreams)  # one replica for the whole session
        assert any(req.startswith("GET /_stcore/stream") for req, _ in hops), hops
        if route in landing:
            assert upstreams == {landing[route]}
    assert {seen[r][0][1] for r in routes[:4]} == set(replicas)  # both replicas served


def test_a_session_whose_replica_dies_goes_on_on_the_other_one(proxy, browser):
    """A replica dies during a lecture (issue 19): the page of a browser it served reconnects
    through nginx to the other replica and answers a changed setting within 15 s of the death,
    with the settings of its URL (a new session there: the URL holds them); when the dead
    replica comes back, the page's files still come from the session's replica."""
    url, log, replicas, procs = proxy
    context, page = _open(browser, url)
    frame = player(page)
    frame.wait_for_function("landingPlayer.run.done && landingPlayer.run.cost.length === 61",
                            timeout=30_000)
    (route,) = [c["value"] for c in context.cookies() if c["name"] == "landing_route"]
    (holder,) = {up for _, up in _routes(log)[route]}
    (survivor,) = set(replicas) - {holder}
    # during a lecture the other replica serves students too (it has run the app before)
    other = next(r for r, replica in _probe(url, log).items() if replica == survivor)
    other_context, other_page = _open(browser, url, other)
    player(other_page).wait_for_function("landingPlayer.run.done", timeout=30_000)

    start = time.monotonic()

    def left() -> float:
        """Milliseconds left of the 15 s the page has from the replica's death."""
        return max(1.0, 1000 * (15 - (time.monotonic() - start)))

    # the page opens a new stream once a replica answers its health check; the new session there
    # reruns the script with the URL's settings (a setting changed before that run ends would be
    # overwritten by the URL's): wait for its first message, then for the run to end
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda m: received.append(m))
            if "/_stcore/stream" in ws.url else None)
    procs[replicas.index(holder)].kill()
    while not received and left() > 1:
        page.wait_for_timeout(50)
    page.wait_for_selector(IDLE, timeout=left())
    max_iter = page.get_by_label("max iterations", exact=True)
    max_iter.fill("80", timeout=left())  # waits until the reconnected page enables its widgets
    max_iter.press("Enter", timeout=left())
    frame = player(page, timeout=left())
    frame.wait_for_function("landingPlayer.run.done && landingPlayer.run.cost.length === 81",
                            timeout=left())
    print(f"the other replica answered {time.monotonic() - start:.1f} s after the death")
    assert page.get_by_label("seed", exact=True).input_value() == "3"  # the URL's settings
    assert "seed=3" in page.url and "max_iter=80" in page.url

    # the dead replica comes back (compose restarts it) and nginx gives it its routes again
    # after fail_timeout: the page's session and its files stay on the survivor
    port = int(holder.rsplit(":", 1)[1])
    back = _replica(port, log.parent / "back.log")
    try:
        wait_healthy(f"http://{holder}", back, log.parent / "back.log")
        conf = (ROOT / "deploy" / "nginx.conf").read_text()
        time.sleep(1 + int(re.search(r"fail_timeout=(\d+)s", conf)[1]))
        with page.expect_download() as download:
            page.get_by_role("button", name="History (CSV)").click()
        rows = Path(download.value.path()).read_text().splitlines()
        assert len(rows) == 82, rows[:3]  # a header and iterations 0..80
    finally:
        back.terminate()
        back.wait(timeout=10)
    context.close()  # the new stream ends: nginx logs it now
    other_context.close()
    time.sleep(1.0)
    streams = [up.split(", ")[-1] for request, up in _routes(log)[route]
               if request.startswith("GET /_stcore/stream")]
    assert streams == [holder, survivor], streams
    # the download's file: asked of the replica back on the route (404), passed on to the survivor
    media = [(up, status) for request, up, status in _routes(log, status=True)[route]
             if request.startswith("GET /media/")]
    assert media[-1] == (f"{holder}, {survivor}", "200"), media
