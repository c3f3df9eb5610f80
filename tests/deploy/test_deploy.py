"""deploy/: the Dockerfile, compose.yaml, nginx.conf and run-app.sh agree with each other and
with the app (quick checks; the Dockerfile's replay that serves the app is
tests/browser/test_dockerfile_browser.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.deploy.dockerfile_replay import DOCKERFILE, copy, dockerignore, ignored, parse

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
IMAGE = parse(DOCKERFILE.read_text())


def _copied() -> set[str]:
    return {source for sources, _ in IMAGE.copies for source in sources}


def test_the_replay_skips_only_the_base_image_uv_and_the_user():
    assert [s.split()[0] for s in IMAGE.skipped] == ["FROM", "RUN", "RUN", "USER"]
    assert "pip install" in IMAGE.skipped[1] and "useradd" in IMAGE.skipped[2]
    assert [step[1][:2] for step in IMAGE.steps if step[0] == "run"] == [["uv", "sync"]] * 2


def test_every_copied_path_is_in_the_build_context(tmp_path):
    patterns = dockerignore(ROOT)
    for source in _copied():
        assert (ROOT / source).exists() and not ignored(source, patterns), source
    with pytest.raises(FileNotFoundError, match="nothing.py"):
        copy(ROOT, ["app.py", "nothing.py"], "./", tmp_path, "/app")


def test_the_image_holds_every_local_module_the_app_imports():
    """Each top-level package or module of the repository that app.py, pages/ or explorer/
    import is copied (else the container's first script run fails)."""
    local = {p.stem for p in ROOT.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    imported = set()
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("explorer/**/*.py"),
                 *ROOT.glob("landing_core/**/*.py")]:
        imported |= set(re.findall(r"^\s*(?:from|import) (\w+)", path.read_text(), re.M))
    needed = (imported & local) | {"app"}
    assert needed >= {"explorer", "landing_core"}
    copied = {Path(s).stem for s in _copied()}
    assert needed <= copied, needed - copied
    assert {"pages", ".streamlit"} <= copied  # st.navigation's pages, the hosting settings


@pytest.mark.parametrize(("path", "out"), [
    (".venv/lib/x.py", True), ("explorer/__pycache__/a.pyc", True), ("__pycache__", True),
    ("tests/screenshots/a.png", True), (".git", True), ("explorer/state.py", False),
    (".streamlit/config.toml", False), ("tests/deploy/test_deploy.py", False)])
def test_dockerignore_keeps_the_environment_out_and_the_app_in(path, out):
    assert ignored(path, dockerignore(ROOT)) is out


def test_dockerignore_patterns_follow_dockers_rules():
    assert ignored("a/b/c.txt", ["a"]) and not ignored("b/a", ["a"])
    assert ignored("x/y/z.pyc", ["**/*.pyc"]) and ignored("z.pyc", ["**/*.pyc"])
    assert not ignored("a/keep", ["a/*", "!a/keep"]) and ignored("a/drop", ["a/*", "!a/keep"])
    assert not ignored("ab", ["a?c"]) and ignored("abc", ["a?c"])


def test_the_image_and_run_app_set_the_same_process_settings():
    """The container's ENV holds every variable deploy/run-app.sh sets before Python starts,
    with the same value (a container started another way still gets them)."""
    script = (DEPLOY / "run-app.sh").read_text()
    defaults = dict(re.findall(r'^export (\w+)="\$\{\1:-([^}]*)\}"', script, re.M))
    assert {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MALLOC_ARENA_MAX"} <= defaults.keys()
    for key, value in defaults.items():
        assert IMAGE.env.get(key) == value, key


def test_one_port_from_cmd_to_healthcheck_to_the_proxy():
    (port,) = IMAGE.expose
    assert IMAGE.cmd[:2] == ["./deploy/run-app.sh", str(port)]
    assert f"127.0.0.1:{port}/_stcore/health" in IMAGE.healthcheck
    nginx = (DEPLOY / "nginx.conf").read_text()
    upstream = re.search(r"upstream landing \{(.*?)\}", nginx, re.S)[1]
    servers = re.findall(r"^\s*server (\w+):(\d+)\b[^;]*;", upstream, re.M)
    compose = (DEPLOY / "compose.yaml").read_text()
    services = re.findall(r"^  (\w+):", compose, re.M)
    replicas = [s for s in services if s != "proxy"]
    assert servers == [(name, str(port)) for name in replicas]
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in compose
    assert re.search(r"listen 80;", nginx) and '"8080:80"' in compose
    assert "dockerfile: deploy/Dockerfile" in compose and "context: .." in compose


def test_the_proxy_accepts_the_largest_upload_streamlit_accepts():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    nginx = (DEPLOY / "nginx.conf").read_text()
    body = int(re.search(r"client_max_body_size (\d+)m;", nginx)[1])
    assert body > config["server"]["maxUploadSize"]


def test_compose_budget_is_the_images_default():
    compose = (DEPLOY / "compose.yaml").read_text()
    for key in ("LANDING_BUDGET_SECONDS", "LANDING_BUDGET_MB"):
        assert re.search(rf'{key}: "{IMAGE.env[key]}"', compose), key
