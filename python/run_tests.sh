#!/usr/bin/env bash
# Builds the Python package from source (maturin, the unoptimised `python-ci` profile of
# Cargo.toml; PTXFP_PYTHON_PROFILE=release for the wheel users get) into a fresh virtual
# environment under target/, and runs its tests (python/tests). `.ci/run` calls it; it needs
# python3 ≥ 3.9 with venv, and PyPI for maturin, pytest, pytest-xdist, numpy, ml_dtypes,
# matplotlib and gfloat (the oracle of tests/test_gfloat.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/target/python-venv"
wheels="$root/target/python-wheels"
rm -rf "$venv" "$wheels"
if ! python3 -m venv "$venv" 2>/dev/null; then
  # Debian's python3 lacks venv until python3-venv is installed.
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.9.4,<2" pytest pytest-xdist numpy ml_dtypes matplotlib gfloat==0.5.2
"$venv/bin/maturin" build --quiet --profile "${PTXFP_PYTHON_PROFILE:-python-ci}" \
  --manifest-path "$root/python/Cargo.toml" --out "$wheels"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps "$wheels"/ptxfp-*.whl
# From outside the source tree, so that the installed package is the one imported; one
# worker per core (pytest-xdist): the catalog checks are Python loops, 47 s on one core here.
cd "$venv"
MPLBACKEND=Agg "$venv/bin/python" -m pytest -q -n auto "$root/python/tests"
