#!/bin/sh
# Is a crate that depends on ptxfp, built with cargo's defaults, as fast as a build for this
# processor? Builds scripts/bench-dependent (default release profile) twice — no RUSTFLAGS,
# and RUSTFLAGS="-C target-cpu=native" — runs both twice, alternating, on every catalog
# spelling (one thread, 2^20 elements unless an element count is given; with patterns after
# it, only the spellings that contain one of them: the whole catalog takes over an hour), and
# prints each spelling's best rate per build and their ratio, then a summary.
# Usage: scripts/bench_dependent.sh [ELEMENTS [PATTERN…]]
set -eu
cd "$(dirname "$0")/.."
len=${1:-1048576}
[ $# -gt 0 ] && shift
manifest=scripts/bench-dependent/Cargo.toml
out=target/bench-dependent
mkdir -p "$out"
env -u RUSTFLAGS cargo build --release --quiet --manifest-path "$manifest" --target-dir "$out/default"
RUSTFLAGS="-C target-cpu=native" cargo build --release --quiet --manifest-path "$manifest" --target-dir "$out/native"
for round in 1 2; do
    for build in default native; do
        "$out/$build/release/ptxfp-bench-dependent" "$len" "$@" > "$out/$build.$round.tsv"
    done
done
grep -m1 'model name' /proc/cpuinfo | sed 's/.*: /cpu: /'
awk -F '\t' '
    FNR == 1 { file++ }
    { build = (FILENAME ~ /native/) ? "native" : "default"
      if (!(($1, build) in best) || $2 > best[$1, build]) best[$1, build] = $2
      path[$1] = $3; if (!($1 in order)) { order[$1] = ++n; name[n] = $1 } }
    END {
        printf "%-36s %12s %12s %7s  %s\n", "spelling", "default/s", "native/s", "ratio", "path"
        for (i = 1; i <= n; i++) {
            s = name[i]; r = best[s, "default"] / best[s, "native"]
            printf "%-36s %12.4g %12.4g %7.3f  %s\n", s, best[s, "default"], best[s, "native"], r, path[s]
            if (r < 0.9) slow++
            sum += log(r); if (i == 1 || r < min) { min = r; worst = s }
        }
        printf "\n%d spellings: geometric mean ratio %.3f, lowest %.3f (%s), %d below 0.9\n", n, exp(sum / n), min, worst, slow
    }' "$out"/default.1.tsv "$out"/default.2.tsv "$out"/native.1.tsv "$out"/native.2.tsv
