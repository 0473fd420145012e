#!/usr/bin/env bash
# The optional capture tier: every kernel `ptxfp capture --all` writes must assemble with
# NVIDIA's ptxas, for a target of each generation and each target that first has a family of
# the low-precision and mixed-precision forms: sm_70 with ptxas 12.9 (13.5 dropped it), and
# sm_80, sm_89, sm_90, sm_100a, sm_100f, sm_103a, sm_107a, sm_110f and sm_120a with ptxas
# 13.5. ptxas comes from PyPI (nvidia-cuda-nvcc-cu12 and nvidia-cuda-nvcc, installed into
# target/ptxas-venv and target/ptxas13-venv, the venvs scripts/ptxas_cvt_catalog.py uses); no
# GPU is needed.
#   scripts/ptxas_check.sh [PTXFP]     (default: target/release/ptxfp, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ptxfp=${1:-target/release/ptxfp}
[ -x "$ptxfp" ] || cargo build --release --quiet
install() { # venv package → the path of its ptxas
    [ -x "$1/bin/python3" ] || python3 -m venv "$1"
    "$1/bin/python3" -m pip install --quiet --disable-pip-version-check "$2"
    find "$1/" -path '*bin/ptxas' -type f | head -1
}
ptxas12=$(install target/ptxas-venv 'nvidia-cuda-nvcc-cu12==12.9.86')
ptxas13=$(install target/ptxas13-venv 'nvidia-cuda-nvcc==13.5.37')
failed=0
for arch in sm_70 sm_80 sm_89 sm_90 sm_100a sm_100f sm_103a sm_107a sm_110f sm_120a; do
    ptxas=$ptxas13
    [ "$arch" = sm_70 ] && ptxas=$ptxas12
    kit=target/ptxas-kits/$arch
    rm -rf "$kit"
    "$ptxfp" capture --all --arch "$arch" --random 1 --out "$kit" >/dev/null
    total=0 bad=0
    for ptx in "$kit"/*.ptx; do
        total=$((total + 1))
        if ! log=$("$ptxas" -arch="$arch" "$ptx" -o /dev/null 2>&1); then
            bad=$((bad + 1))
            echo "$arch $(basename "$ptx" .ptx): $(echo "$log" | grep -m1 error)"
        fi
    done
    echo "$arch: $((total - bad)) of $total kernels assemble ($("$ptxas" --version | tail -1))"
    [ "$bad" -eq 0 ] || failed=1
done
exit $failed
