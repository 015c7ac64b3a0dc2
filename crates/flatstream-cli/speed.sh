#!/usr/bin/env bash
# Times `flatstream verify --threads 1` on a 1 GiB xxhash64 telemetry stream against the least
# code that does the same work (`Frames` with XXH3 over the same mapped bytes, one thread: the
# frames_mapped example of the bench crate), and `flatstream verify` as it runs by default (on
# every core for a file this size), and measures the peak memory of `flatstream inspect` on that
# file. Prints the figures; asserts nothing (speed is not tested in tests).
#
#   crates/flatstream-cli/speed.sh [RUNS]      (default 5 runs of each, best and median kept)
#
# Needs about 1.2 GB in the target directory and /usr/bin/time (GNU time) for the memory.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
target=${CARGO_TARGET_DIR:-target}
file="$target/speed-1gib-xxhash64.fstream"

cargo build --quiet --release -p flatstream-cli -p flatstream-bench --example frames_mapped
# 18 million readings of the demo, about 1.08 GB.
if [ ! -f "$file" ]; then
    cargo run --quiet --release --example telemetry -- 18000000 "$file" >/dev/null
fi
bin="$target/release/flatstream"
base="$target/release/examples/frames_mapped"
cat "$file" >/dev/null # into the page cache: both read it from memory

now() { date +%s.%N; }
declare -a t_base t_verify t_all
for ((i = 0; i < runs; i++)); do # alternate, so that drift hits all alike
    s=$(now); "$base" "$file" >/dev/null; e=$(now)
    t_base+=("$(awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f", e - s}')")
    s=$(now); "$bin" verify --threads 1 "$file" >/dev/null; e=$(now)
    t_verify+=("$(awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f", e - s}')")
    s=$(now); "$bin" verify "$file" >/dev/null; e=$(now)
    t_all+=("$(awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f", e - s}')")
done
stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "best %.3f s, median %.3f s", a[1], a[int((NR+1)/2)]}'; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
size=$(stat -c %s "$file")
echo "file: $file ($size bytes, $("$bin" inspect --json "$file" | sed -E 's/.*"frames":([0-9]+).*/\1/') frames)"
echo "machine: $(nproc) cores, $(uname -sr), $(rustc --version)"
echo "Frames + XXH3, mapped (frames_mapped): $(stats "${t_base[@]}")"
echo "flatstream verify --threads 1:         $(stats "${t_verify[@]}")"
echo "verify speed / Frames speed (best):    $(awk -v b="$(best "${t_base[@]}")" -v v="$(best "${t_verify[@]}")" 'BEGIN {printf "%.3f", b / v}')"
echo "flatstream verify (default: $(nproc) threads): $(stats "${t_all[@]}")"
echo "default speed / --threads 1 (best):    $(awk -v o="$(best "${t_verify[@]}")" -v a="$(best "${t_all[@]}")" 'BEGIN {printf "%.3f", o / a}')"
echo "$("$base" "$file")"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$bin" inspect "$file" >/dev/null 2>"$target/speed-inspect-time.txt"
    echo "flatstream inspect peak memory: $(grep 'Maximum resident set size' "$target/speed-inspect-time.txt" | awk '{print $NF}') KiB (Maximum resident set size)"
fi
