#!/usr/bin/env bash
# The per-lane cost of libptxfp from C (capi/bench/bench.c): builds the release shared library
# as any user would (no RUSTFLAGS), compiles the benchmark against it and runs it on one core.
# Arguments are spellings (default: fma.rn.f32 add.rn.f32 rcp.approx.ftz.f32).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p ptxfp-capi
out=target/release/capi-bench
"${CC:-cc}" -std=c99 -O2 -Wall -Wextra -Werror -I capi/include capi/bench/bench.c -o "$out" \
  -L target/release -Wl,--disable-new-dtags,-rpath,"$PWD/target/release" -lptxfp
if command -v taskset >/dev/null; then
  taskset -c 0 "$out" "$@"
else
  "$out" "$@"
fi
