"""deploy/Dockerfile replayed on this machine (no container engine or registry here):
tests/deploy/dockerfile_replay.py copies what its COPY lines list into a temporary WORKDIR, runs its
``uv sync`` steps there (with the uv on PATH or at ~/.uv/bin/uv; skipped when there is none;
offline, from uv's cache, without compiling bytecode: ~5 s) and starts its CMD with its ENV.
Skipped: the base image (FROM), ``pip install uv``, ``useradd`` and USER. Then the server
answers /_stcore/health, HEALTHCHECK's command succeeds (and fails once the server is gone),
the main page serves and a browser session's run completes."""

from __future__ import annotations

import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.deploy.dockerfile_replay import DOCKERFILE, base_env, build, find_uv, parse

from .conftest import free_port, wait_healthy
from .helpers import PLAYER, player

pytestmark = pytest.mark.browser
ERROR = '[data-testid="stException"], [data-testid="stAlertContainer"]'


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    """The replayed image's CMD running: yields (URL, process, image, WORKDIR, port, log)."""
    uv = find_uv()
    if uv is None:
        pytest.skip("no uv to replay the Dockerfile's `uv sync` steps: none on PATH and none at "
                    "~/.uv/bin/uv, where the README installs it")
    image = parse(DOCKERFILE.read_text())
    app = tmp_path_factory.mktemp("app")
    build(image, app, uv)
    (exposed,) = image.expose
    port = free_port()
    argv = [str(port) if arg == str(exposed) else arg for arg in image.cmd]
    assert argv != image.cmd, "CMD does not serve on the EXPOSEd port"
    log = app.parent / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(argv, cwd=app, env=base_env(image), stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log)
        yield url, proc, image, app, port, log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def healthcheck(image, app, exposed: int, port: int) -> int:
    """HEALTHCHECK's command as the engine runs it (``/bin/sh -c``), on the replay's port; its
    ``python`` is the image's (here the replayed environment's)."""
    command = image.healthcheck.replace(f":{exposed}/", f":{port}/")
    assert command != image.healthcheck, "HEALTHCHECK does not ask the EXPOSEd port"
    env = base_env(image)
    env["PATH"] = f"{app / '.venv' / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    return subprocess.run(["/bin/sh", "-c", command], env=env, timeout=30,
                          capture_output=True).returncode


def test_the_replayed_image_serves_the_app(container, page):
    url, proc, image, app, port, log = container
    (exposed,) = image.expose
    # the process is the image's environment's Python, with the image's settings
    argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
    assert argv[0] == b".venv/bin/python" and b"streamlit" in argv, argv
    environ = dict(item.split(b"=", 1) for item in
                   Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0") if b"=" in item)
    for key, value in image.env.items():
        assert environ.get(key.encode()) == value.encode(), key
    assert urllib.request.urlopen(f"{url}/_stcore/health", timeout=10).read() == b"ok"
    assert healthcheck(image, app, exposed, port) == 0
    html = urllib.request.urlopen(url, timeout=10).read().decode()
    assert '<div id="root">' in html
    # a session: the script runs from the copied files, the player holds the default run
    page.goto(url)
    page.locator(f"{PLAYER}, {ERROR}").first.wait_for(timeout=60_000)
    assert page.locator(ERROR).count() == 0, log.read_text()[-3000:]
    frame = player(page)
    frame.wait_for_function("landingPlayer.run.done", timeout=60_000)
    assert not page.console_errors, page.console_errors


def test_the_healthcheck_fails_when_the_server_is_gone(container):
    _, proc, image, app, port, _ = container
    proc.terminate()
    proc.wait(timeout=10)
    assert healthcheck(image, app, image.expose[0], port) != 0
