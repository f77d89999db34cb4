#!/usr/bin/env bash
# Writes what both CLIs print for a fixed set of inputs into OUTDIR, one file per
# case (stdout, stderr and the exit code; sandbox IDs and the build's own path
# replaced by placeholders), so that a restructuring can be shown to change no
# output: run it before and after, then `diff -r BEFORE AFTER`.
#   scripts/cli-output-snapshot.sh OUTDIR [BUILD_DIR]   (default build/default)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [BUILD_DIR]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$1
build=$(cd "${2:-$repo/build/default}" && pwd)
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OSF_SECRETS_DIR="$scratch/secrets" OSF_SANDBOX_STATE_DIR="$scratch/state"
mkdir -p "$OSF_SECRETS_DIR"
for name in GITHUB_TOKEN NPM_TOKEN API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY DB_PASSWORD; do
  printf 'value-of-%s' "$name" > "$OSF_SECRETS_DIR/$name"
done

normalize() {
  sed -E -e 's/[0-9a-f]{12}/<ID>/g' -e "s#$build#<BUILD>#g" -e "s#$scratch#<SCRATCH>#g" \
    -e "s#$repo#<REPO>#g" -e "s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/<TIME>/g"
}
record() { # record NAME COMMAND...
  local name=$1; shift
  local rc=0
  "$@" > "$scratch/stdout" 2> "$scratch/stderr" < /dev/null || rc=$?
  { echo "# exit $rc"; echo "# stdout"; normalize < "$scratch/stdout"
    echo "# stderr"; normalize < "$scratch/stderr"; } > "$out/$name"
}

for cli in sandbox-kubernetes sandbox-local; do
  bin="$build/adapter/$cli"
  record "$cli.help" "$bin" --help
  for sub in create exec copy snapshot destroy list egress-log gc extend suspend resume doctor; do
    record "$cli.$sub.help" "$bin" "$sub" --help
  done
  for spec in "$repo"/contracts/examples/valid/*.json "$repo"/contracts/examples/invalid/*.json; do
    kind=$(basename "$(dirname "$spec")")
    record "$cli.dry-run.$kind.$(basename "$spec" .json)" "$bin" create --dry-run "$spec"
  done
  # sandbox-local pulls no image: the same specs on the host's own root.
  for spec in "$repo"/contracts/examples/valid/*.json; do
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["template"]="host"; print(json.dumps(d))' \
      "$spec" > "$scratch/host-$(basename "$spec")"
    record "$cli.dry-run.host.$(basename "$spec" .json)" "$bin" create --dry-run "$scratch/host-$(basename "$spec")"
  done
  record "$cli.no-args" "$bin"
  record "$cli.bad-sub" "$bin" nosuchcommand
  record "$cli.exec-bad-id" "$bin" exec NOT-AN-ID -- true
  record "$cli.list-bad-output" "$bin" list -o nosuch
done
echo "cli-output-snapshot: $(ls "$out" | wc -l) cases in $out"
