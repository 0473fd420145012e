#!/usr/bin/env bash
# Run capture kits one after another on a machine with an NVIDIA GPU: for each line of a plan,
# `ptxfp capture` writes a kit, scripts/capture_run.py runs it on the GPU and `ptxfp compare`
# checks it, and the kit is deleted, so that domains of 2^32 results (8 or 16 GiB each) need
# room for two kits only. The GPU run of one kit overlaps the comparison of the one before.
#
#   scripts/capture_pipeline.sh PTXFP PLAN OUT [SECONDS] [-- CAPTURE_RUN_OPTIONS...]
#
# PLAN: one kit per line, the line being `ptxfp capture`'s arguments (spellings and options such
# as `--random N --seed S`; `--out` is added), `#` comments. SECONDS: no kit is started after
# that many seconds (default: no limit); the kits already started finish. OUT receives
# `log.txt`, `summary.jsonl` (one line per spelling: `ptxfp compare`'s report), `device.json`
# and, when a spelling differs, `mismatches.tar` (its first 65,536 mismatches as uint64 triples
# index, GPU, ptxfp, in `<spelling>.mismatches.npy.xz`). The kits go to $PTXFP_CAPTURE_WORK, else
# /dev/shm when it has 40 GiB free, else a directory under /tmp. Exit status: 1 when a step failed
# (the other lines still run), else 3 when a spelling differs, 0 when every one is identical.
set -u -o pipefail

if [ $# -lt 3 ]; then
    sed -n '2,/^set/p' "$0" | sed '$d' >&2
    exit 2
fi
ptxfp=$(realpath -m "$1")
plan=$2
out=$3
seconds=${4:-0}
shift 3
[ $# -gt 0 ] && [ "$1" != "--" ] && shift
[ "${1:-}" = "--" ] && shift
run_options=("$@")
here=$(dirname "$(realpath "$0")")
if [ ! -x "$ptxfp" ] || [ ! -f "$plan" ]; then
    echo "capture_pipeline: need the ptxfp binary (got '$ptxfp') and a plan file (got '$plan')" >&2
    exit 2
fi

mkdir -p "$out"
log="$out/log.txt"
if [ -n "${PTXFP_CAPTURE_WORK:-}" ]; then
    work=$PTXFP_CAPTURE_WORK
elif [ "$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -1)" -ge 40 ] 2>/dev/null; then
    work=/dev/shm/ptxfp-capture
else
    work=$(mktemp -d /tmp/ptxfp-capture.XXXXXX)
fi
mkdir -p "$work"
start=$SECONDS
status=0

say() { echo "[$((SECONDS - start))s] $*" | tee -a "$log"; }

# Compare kit $1 (written from plan line $2), append its reports, delete it.
compare() {
    local kit=$1
    "$ptxfp" compare "$kit" --mismatches >>"$log" 2>&1
    local rc=$?
    case $rc in
        0) ;;
        3) [ $status -eq 0 ] && status=3 ;;
        *) say "compare of $kit failed (exit $rc)"; status=1 ;;
    esac
    [ -f "$out/device.json" ] || cp "$kit/device.json" "$out/" 2>/dev/null
    python3 - "$kit" "$out" <<'EOF' || status=1
import glob, io, json, lzma, os, sys, tarfile
kit, out = sys.argv[1:]
path = os.path.join(kit, "summary.json")
if not os.path.exists(path):
    sys.exit(0)
with open(path) as f, open(os.path.join(out, "summary.jsonl"), "a") as dest:
    for outcome in json.load(f):
        dest.write(json.dumps(outcome) + "\n")
for name in sorted(glob.glob(os.path.join(kit, "*.mismatches.npy"))):
    with open(name, "rb") as f:
        head = f.read(10)
        header_len = int.from_bytes(head[8:10], "little")
        header = f.read(header_len).decode("latin1")
        words = int(header.split("'shape': (")[1].split(",")[0])  # triples, flat
        keep = min(words, 3 * 65536)
        data = f.read(keep * 8)
    text = header.replace("(%d," % words, "(%d," % keep, 1).rstrip("\n")
    text = text + " " * (header_len - 1 - len(text)) + "\n"
    blob = lzma.compress(head + text.encode("latin1") + data)
    with tarfile.open(os.path.join(out, "mismatches.tar"), "a") as tar:
        info = tarfile.TarInfo(os.path.basename(name) + ".xz")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
EOF
    rm -rf "$kit"
}

say "work directory $work; ptxfp $("$ptxfp" --version | head -1)"
previous=""
n=0
while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    [ -z "${line// /}" ] && continue
    if [ "$seconds" -gt 0 ] && [ $((SECONDS - start)) -ge "$seconds" ]; then
        say "deadline reached; not started: $line"
        continue
    fi
    n=$((n + 1))
    kit="$work/kit$n"
    # shellcheck disable=SC2086 # the plan line is a list of arguments
    if ! "$ptxfp" capture $line --out "$kit" >>"$log" 2>&1; then
        say "capture failed: $line"
        status=1
        continue
    fi
    say "run: $line"
    python3 "$here/capture_run.py" "$kit" "${run_options[@]}" >>"$log" 2>&1 &
    running=$!
    if [ -n "$previous" ]; then
        compare "$previous"
    fi
    if ! wait "$running"; then
        say "capture_run failed on: $line"
        status=1
    fi
    previous=$kit
done <"$plan"
if [ -n "$previous" ]; then
    compare "$previous"
fi
say "done: $(wc -l <"$out/summary.jsonl" 2>/dev/null || echo 0) spellings compared, exit $status"
exit $status
