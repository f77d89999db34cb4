#!/usr/bin/env bash
# Builds the libFuzzer targets (in the asan preset's build/asan/fuzz: clang,
# ASan+UBSan, the fuzzed libraries with -fsanitize=fuzzer-no-link) and
# runs each for a bounded time on a copy of its seed corpus. Exits non-zero
# when any target crashes, leaks, times out or breaks an invariant.
#   ./scripts/fuzz.sh                 every target, 60 s each
#   ./scripts/fuzz.sh 20              every target, 20 s each
#   ./scripts/fuzz.sh 600 sse host    only these targets
#   OSF_FUZZ_ARGS="-jobs=2 -workers=2" ./scripts/fuzz.sh 300   extra libFuzzer flags
#   OSF_FUZZ_JOBS=1 ./scripts/fuzz.sh 20    one target at a time (default: one per CPU)
# Runs go to build/fuzz-runs/<target>/ (corpus copy, log, crash files); the
# committed corpus in tests/fuzz/corpus is never written. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: $0 [SECONDS] [TARGET...]" >&2
  exit 2
fi
all_targets=(http_head spec mcp_json sse host request_rules socks5 mcp_body admission body_framing secret_head h2_server h2_client)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$t" ]; then
    echo "fuzz.sh: unknown target '$t' (known: ${all_targets[*]})" >&2
    exit 2
  fi
done

echo "fuzz.sh: building ${targets[*]} (preset asan)"
cmake --preset asan >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz-$t"); done
cmake --build --preset asan --target "${build_targets[@]}" -j"${OSF_FUZZ_BUILD_JOBS:-$(nproc)}"

runs=build/fuzz-runs
# Sanitizer reports are fatal (as the asan preset compiles them, whatever a build
# directory was configured with), stacks symbolised.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:symbolize=1}"
read -r -a extra_args <<<"${OSF_FUZZ_ARGS:-}"

# Targets run side by side, OSF_FUZZ_JOBS at a time (default: one per CPU);
# each is one libFuzzer process, so a run takes about SECONDS x targets / jobs.
jobs=${OSF_FUZZ_JOBS:-$(nproc)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: OSF_FUZZ_JOBS must be a positive number" >&2; exit 2; }

# Runs one target; its verdict goes to $runs/<target>/result (status, then the line).
run_target() {
  local t=$1 dir="$runs/$1" seeds status execs cov found grown
  seeds=$(find "$dir/corpus" -type f | wc -l)
  local dict=()
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=("-dict=tests/fuzz/dict/$t.dict")
  status=0
  # -timeout: one input taking 10 s is a hang; the outer timeout is a backstop.
  timeout --kill-after=30 $((seconds + 300)) \
    "build/asan/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "${dict[@]}" "${extra_args[@]}" \
    "$dir/corpus" >"$dir/log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  # -fork prints no final stats: take the last progress line's count.
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$dir/log" | tail -1 | tr -d '#')
  cov=$(grep -oE 'cov: [0-9]+' "$dir/log" | tail -1 | cut -d' ' -f2)
  found=$(find "$dir/artifacts" -type f | wc -l)
  grown=$(find "$dir/corpus" -type f | wc -l)
  if [ "$found" -gt 0 ] && [ "$status" -eq 0 ]; then status=1; fi
  printf '%s\n%s\n' "$status" \
    "fuzz-$t: ${execs:-?} runs, coverage ${cov:-?}, corpus $seeds -> $grown, $found artifact(s)" \
    >"$dir/result"
}

started=$SECONDS
running=()
for t in "${targets[@]}"; do
  dir="$runs/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  echo "fuzz.sh: fuzz-$t for ${seconds}s ($(find "$dir/corpus" -type f | wc -l) seeds, log in $dir/log)"
  run_target "$t" &
  running+=($!)
  if [ ${#running[@]} -ge "$jobs" ]; then
    wait -n || true
    alive=()
    for pid in "${running[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    running=("${alive[@]}")
  fi
done
wait

passed=0
failed=0
summary=()
for t in "${targets[@]}"; do
  dir="$runs/$t"
  { read -r status; read -r line; } <"$dir/result" 2>/dev/null || { status=1; line="fuzz-$t: no result"; }
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    summary+=("FAIL $line, exit $status, in $dir/artifacts")
    echo "---- fuzz-$t failed; end of its log:"
    grep -v '^#[0-9]' "$dir/log" | tail -60
    echo "----"
  else
    passed=$((passed + 1))
    summary+=("ok   $line")
  fi
done

echo
echo "fuzz.sh summary (${seconds}s per target, $((SECONDS - started))s in all):"
printf '  %s\n' "${summary[@]}"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
