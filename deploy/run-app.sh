#!/bin/sh
# Start one app process for a shared server: BLAS and OpenMP at one thread each (set before
# Python starts, since streamlit imports numpy before app.py runs: one request must not take
# every core, and many threads per request only contend on a busy server), then Streamlit on
# the given port. glibc's malloc at two arenas: Streamlit runs every script run in a new thread,
# and with glibc's default (up to 8 arenas per core) each arena keeps freed, fragmented memory
# of its own, so the server grows for as long as new threads land on arenas below their
# high-water mark; two arenas reach it within minutes (benchmarks/RESULTS.md, "Hosting").
#   deploy/run-app.sh [PORT] [extra streamlit options...]
set -eu
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
PORT="${1:-8501}"
[ "$#" -gt 0 ] && shift
cd "$(dirname "$0")/.."
# $PYTHON, else the project's environment when there is one (uv sync), else python3
PY="${PYTHON:-python3}"
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
exec "$PY" -m streamlit run app.py --server.port "$PORT" --server.headless true \
    --browser.gatherUsageStats false "$@"
