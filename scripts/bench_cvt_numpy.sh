#!/bin/sh
# ptxfp's f32 -> bf16/f16 conversions against ml_dtypes and NumPy on the same machine, in the
# same run (scripts/bench_cvt_numpy.py). Needs python3 with venv; installs numpy and ml_dtypes
# into target/bench-venv.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet numpy ml_dtypes
fi
exec "$venv/bin/python" scripts/bench_cvt_numpy.py target/release/ptxfp
