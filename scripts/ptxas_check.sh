#!/usr/bin/env bash
# The optional capture tier: every kernel `ptxfp capture --all` writes must assemble with
# NVIDIA's ptxas for sm_70, sm_80, sm_90 and sm_100. ptxas comes from PyPI (nvidia-cuda-nvcc),
# installed into target/ptxas-venv; no GPU is needed.
#   scripts/ptxas_check.sh [PTXFP]     (default: target/release/ptxfp, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ptxfp=${1:-target/release/ptxfp}
[ -x "$ptxfp" ] || cargo build --release --quiet
venv=target/ptxas-venv
if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check 'nvidia-cuda-nvcc-cu12==12.9.86'
ptxas=$(find "$venv/" -path '*cuda_nvcc/bin/ptxas' -type f | head -1)
"$ptxas" --version | tail -1
failed=0
for arch in sm_70 sm_80 sm_90 sm_100; do
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
    echo "$arch: $((total - bad)) of $total kernels assemble"
    [ "$bad" -eq 0 ] || failed=1
done
exit $failed
