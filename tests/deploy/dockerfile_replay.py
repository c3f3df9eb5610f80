"""deploy/Dockerfile replayed on this machine, without a container engine.

What is replayed: ENV (the variables), WORKDIR (a temporary directory stands for it), COPY (the
listed files and folders of the repository, minus what .dockerignore excludes, into that
directory; a missing source is an error), the RUN steps that are ``uv sync ...`` (in that
directory, offline, from uv's cache), EXPOSE, HEALTHCHECK (its command) and CMD (its argv).

What is skipped, and why: FROM (the base image; this machine's Python 3.11 stands for it),
``RUN pip install ... uv`` (uv is on this machine already: ``find_uv``), ``RUN useradd ...``
and USER (the unprivileged user). Any other RUN step is an error: a new step must be replayed or
listed here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
SKIPPED_RUN = (re.compile(r"pip install( --no-cache-dir)? uv$"), re.compile(r"useradd\b"))


@dataclass
class Image:
    """What the Dockerfile builds, as far as it can be replayed without an engine."""

    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    copies: list[tuple[list[str], str]] = field(default_factory=list)  # (sources, destination)
    steps: list[tuple[str, object]] = field(default_factory=list)  # ("copy"|"run", ...) in order
    expose: list[int] = field(default_factory=list)
    healthcheck: str = ""  # the shell command
    cmd: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continuations joined."""
    lines, joined = [], ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#") or not raw.strip():
            continue
        if raw.rstrip().endswith("\\"):
            joined += raw.rstrip()[:-1] + " "
            continue
        lines.append(joined + raw)
        joined = ""
    assert not joined, "the Dockerfile ends in a continuation"
    parsed = []
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        parsed.append((word.upper(), " ".join(rest.split())))
    return parsed


def parse(text: str) -> Image:
    """The image described by Dockerfile ``text`` (shell-form RUN/HEALTHCHECK, exec-form CMD)."""
    image = Image()
    for word, rest in instructions(text):
        if word == "ENV":
            for item in shlex.split(rest):
                key, sep, value = item.partition("=")
                assert sep, f"ENV {item}: only the KEY=VALUE form is replayed"
                image.env[key] = value
        elif word == "WORKDIR":
            image.workdir = rest
        elif word == "COPY":
            *sources, dest = shlex.split(rest)
            assert not any(s.startswith("--") for s in sources), f"COPY {rest}: flags"
            image.steps.append(("copy", (sources, dest)))
            image.copies.append((sources, dest))
        elif word == "RUN":
            if rest.startswith("uv sync"):
                image.steps.append(("run", shlex.split(rest)))
            elif any(p.search(rest) for p in SKIPPED_RUN):
                image.skipped.append(f"RUN {rest}")
            else:
                raise AssertionError(f"RUN {rest}: neither replayed nor known to be skipped")
        elif word == "EXPOSE":
            image.expose += [int(p) for p in rest.split()]
        elif word == "HEALTHCHECK":
            options, sep, command = rest.partition(" CMD ")
            assert sep and not command.startswith("["), "HEALTHCHECK: shell-form CMD expected"
            image.healthcheck = command
        elif word == "CMD":
            image.cmd = json.loads(rest)
        elif word in ("FROM", "USER"):
            image.skipped.append(f"{word} {rest}")
        else:
            raise AssertionError(f"{word}: not replayed")
    return image


def _pattern(pattern: str) -> re.Pattern:
    """A .dockerignore pattern as a regular expression over context paths (Go's
    filepath.Match within a name; ``**`` any number of folders)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        else:
            c = pattern[i]
            out += "[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
            i += 1
    return re.compile(out)


def ignored(relative: str, patterns: list[str]) -> bool:
    """Whether .dockerignore's ``patterns`` exclude the context path ``relative``: the last
    pattern that matches it or one of its folders decides (``!`` re-includes)."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    out = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        regex = _pattern(pattern.removeprefix("!").strip("/"))
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            out = not keep
    return out


def dockerignore(context: Path) -> list[str]:
    path = context / ".dockerignore"
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def copy(context: Path, sources: list[str], dest: str, app: Path, workdir: str) -> None:
    """COPY ``sources`` (relative to the build context) to ``dest`` (relative to WORKDIR, which
    is ``app`` here): a folder's contents go into ``dest``; several sources need a folder."""
    patterns = dockerignore(context)
    target = app / dest if not dest.startswith("/") else app / Path(dest).relative_to(workdir)
    for source in sources:
        path = context / source
        if not path.exists() or ignored(source, patterns):
            raise FileNotFoundError(f"COPY {source}: not in the build context")
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                relative = file.relative_to(context).as_posix()
                if not ignored(relative, patterns):
                    out = target / file.relative_to(path)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, out)
        else:
            out = target / path.name if dest.endswith("/") or len(sources) > 1 else target
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, out)


def base_env(image: Image) -> dict[str, str]:
    """A container's environment: the base image's few variables, then the Dockerfile's ENV
    (nothing of this process's own: no virtual environment, no thread settings)."""
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "TMPDIR")
           if key in os.environ}
    return env | image.env


def find_uv() -> str | None:
    """This machine's uv: the one on PATH, else where the README installs it (``~/.uv/bin/uv``,
    which the README's own install leaves off PATH); None when there is neither."""
    found = shutil.which("uv")
    if found:
        return found
    home = Path.home() / ".uv" / "bin" / "uv"
    return str(home) if os.access(home, os.X_OK) else None


def build(image: Image, app: Path, uv: str, context: Path = ROOT) -> list[str]:
    """Replay the COPY and ``uv sync`` steps into ``app`` (WORKDIR) with the executable ``uv``;
    returns uv's output. uv runs offline from its cache (the project's own ``uv sync`` filled it)
    and links instead of copying (``UV_LINK_MODE=hardlink``, only faster): what gets installed
    is the same. Nor does it compile every installed module to bytecode (the image's
    ``UV_COMPILE_BYTECODE`` and pyproject's ``compile-bytecode``): thousands of installed files,
    compiled only for a container's start time; uv ignores compilation errors, so it checked
    nothing, and the server compiles what it imports when it starts."""
    outputs = []
    env = base_env(image) | {"UV_OFFLINE": "1", "UV_LINK_MODE": "hardlink",
                             "UV_PYTHON": "3.11", "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("UV_COMPILE_BYTECODE", None)  # it would clash with --no-compile-bytecode
    for kind, arg in image.steps:
        if kind == "copy":
            sources, dest = arg
            copy(context, sources, dest, app, image.workdir)
        else:
            done = subprocess.run([uv, *arg[1:], "--no-compile-bytecode"], cwd=app, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{' '.join(arg)}:\n{done.stderr[-3000:]}"
            outputs.append(done.stderr)
    return outputs
