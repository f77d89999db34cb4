#!/usr/bin/env bash
# Configures and builds a preset showing the build's progress condensed: one
# line per tenth of the build steps instead of a line per file (or five silent
# minutes). The whole output goes to build/<preset>.log; on a failure its last
# lines are shown.
#   scripts/build-with-progress.sh PRESET [TARGET...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PRESET [TARGET...]" >&2; exit 2; }
cd "$(dirname "$0")/.."
preset=$1; shift
mkdir -p build
log=$PWD/build/$preset.log
targets=()
for target in "$@"; do targets+=(--target "$target"); done
# Configure output is a screen of "-- Found ..." lines: kept in the log, but a
# warning or an error still reaches the terminal.
if ! cmake --preset "$preset" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "configuring preset $preset failed (whole output: $log)" >&2
  exit 1
fi
grep -A8 -E '^CMake (Warning|Deprecation Warning)' "$log" >&2 || true
printf 'building %s (preset %s, %s cores; whole output: %s)\n' "${*:-everything}" "$preset" \
  "$(nproc)" "$log"
start=$SECONDS
configure_lines=$(wc -l <"$log")
# Ninja prints "[done/total] step" per step; one line per 10 % of them is shown.
# A new total is a new phase (CMake re-run first, then the build): counted anew.
progress() {
  local line shown=0 tenth total=0
  while IFS= read -r line; do
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    if ((BASH_REMATCH[2] != total)); then total=${BASH_REMATCH[2]} shown=0; fi
    ((total >= 10)) || continue
    tenth=$((BASH_REMATCH[1] * 10 / BASH_REMATCH[2]))
    if ((tenth > shown)); then
      shown=$tenth
      printf '  %3d %% (%d of %d steps, %d s)\n' $((tenth * 10)) "${BASH_REMATCH[1]}" \
        "${BASH_REMATCH[2]}" $((SECONDS - start))
    fi
  done
}
set +e
cmake --build --preset "$preset" "${targets[@]}" -j"$(nproc)" 2>&1 | tee -a "$log" | progress
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
  tail -n +"$((configure_lines + 1))" "$log" | grep -v -E '^\[[0-9]+/[0-9]+\]' | tail -n 40 >&2
  echo "the build failed (whole output: $log)" >&2
  exit "$status"
fi
echo "built in $((SECONDS - start)) s"
