#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, one after the other, and prints
# the executions each one ran. Exits non-zero on the first crash; libFuzzer keeps the input in
# fuzz/artifacts/<target>/ (turn it into a regression test in crates/flatstream-core/tests/).
#
#   fuzz/run-all.sh SECONDS [TARGET...]
#   FUZZ_RUNS=10000000 fuzz/run-all.sh 3600   # stop each target after that many executions
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). Builds with the stable toolchain and
# RUSTC_BOOTSTRAP=1 (libFuzzer needs a few nightly flags). No sanitizer: the code under test has
# no `unsafe` besides flatstream-core's `in_memory` casts, which ASan could not check (Miri does,
# in CI), and without ASan the targets run several times faster. Debug assertions (and so
# overflow checks) are on. Any single allocation over 64 MiB is a crash: no input is that large,
# so such an allocation would be one the bytes present do not justify.
set -euo pipefail
cd "$(dirname "$0")"
if [[ $# -lt 1 || ! "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift
export RUSTC_BOOTSTRAP=1
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(cargo fuzz list)
fi
flags=(--sanitizer none --debug-assertions)
limits=(-max_total_time="$seconds")
if [[ -n "${FUZZ_RUNS:-}" ]]; then
    limits+=(-runs="$FUZZ_RUNS")
fi
cargo fuzz build "${flags[@]}"
printf '%-18s %14s %10s\n' target executions seconds
for target in "${targets[@]}"; do
    log=$(mktemp)
    mkdir -p "corpus/$target"
    if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- \
        "${limits[@]}" -malloc_limit_mb=64 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1; then
        grep -m 1 -A 12 'panicked' "$log" || true
        tail -n 25 "$log"
        echo "fuzz target $target failed" >&2
        exit 1
    fi
    done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    runs=$(awk '{print $2}' <<<"$done_line")
    secs=$(awk '{print $5}' <<<"$done_line")
    printf '%-18s %14s %10s\n' "$target" "$runs" "$secs"
    rm -f "$log"
done
