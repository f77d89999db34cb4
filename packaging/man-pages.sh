#!/usr/bin/env bash
# The man pages of one built program, git-style: PROGRAM(1) from its --help
# (options, the list of subcommands, variables, exit codes), and one page per
# subcommand, PROGRAM-SUBCOMMAND(1), from `PROGRAM SUBCOMMAND --help` (its
# arguments and options). help2man renders each; the subcommands are read off
# the program's own --help, so a new one gets its page without a change here.
#
#   packaging/man-pages.sh BINARY PROGRAM SUMMARY OUTDIR
#       writes OUTDIR/PROGRAM.1.gz and OUTDIR/PROGRAM-SUBCOMMAND.1.gz
set -euo pipefail
[ $# = 4 ] || { echo "usage: man-pages.sh BINARY PROGRAM SUMMARY OUTDIR" >&2; exit 2; }
bin="$1" program="$2" summary="$3" out="$4"
die() { echo "man-pages.sh: $*" >&2; exit 1; }
command -v help2man >/dev/null || die "help2man is missing (apt-get install help2man)"

version_line="$("$bin" --version)"
version="${version_line#"$program "}"
[ "$version" != "$version_line" ] || die "$bin --version printed '$version_line', not '$program X.Y.Z'"

# "Subcommands:" lists "  name   description" until a blank line; CLI11 puts a
# long name's description on the next, further indented, line.
subcommands="$("$bin" --help | awk '
  /^Subcommands:/ { in_list = 1; next }
  in_list && /^$/ { exit }
  in_list && /^  [^ ]/ { if (name != "") print name "\t" text; name = $1; $1 = ""; sub(/^ +/, ""); text = $0; next }
  in_list && text == "" { sub(/^ +/, ""); text = $0 }
  END { if (name != "") print name "\t" text }')"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"

# help2man runs the program it is given with --help: a small script running
# `BINARY [SUBCOMMAND] --help` through a filter. CLI11 ends the text with the
# footer (variables, exit codes: the first text after two blank lines that is
# not a section heading such as "Subcommands:"), its paragraphs wrapped with
# indented lines; the filter joins those lines (or help2man makes each an
# indented block) and, for a subcommand, cuts the footer: it is the main
# page's, which SEE ALSO names.
help_filter='
  footer && /^ / { sub(/^ +/, " "); held = held $0; next }
  footer { if (held != "") print held "\n"; held = $0; next }
  /^$/ { blank++; next }
  blank >= 2 && !/^[A-Za-z][A-Za-z ]*:$/ { if (cut) exit; footer = 1; print ""; held = $0; next }
  { while (blank > 0) { print ""; blank-- } print }
  END { if (held != "") print held }'
help_script() { # PAGE SUBCOMMAND... -> an executable printing its filtered help
  local page="$1" cut=0
  shift
  [ $# = 0 ] || cut=1
  {
    echo '#!/usr/bin/env bash'
    printf '%q' "$bin"
    printf ' %q' "$@" --help
    printf ' | awk -v cut=%s %q\n' "$cut" "$help_filter"
  } >"$tmp/$page"
  chmod +x "$tmp/$page"
  echo "$tmp/$page"
}

see_also_main=""
while IFS=$'\t' read -r sub text; do
  [ -n "$sub" ] || continue
  page="$program-$sub"
  printf '[SEE ALSO]\n.BR %s (1)\nfor the program as a whole (its variables and exit codes, where it has them).\n' "$program" >"$tmp/$page.h2m"
  help2man --no-info --no-discard-stderr --version-string="$page $version" \
    --source="$program $version" --name="${text:-$program $sub}" --include="$tmp/$page.h2m" \
    --output="$out/$page.1" "$(help_script "$page" "$sub")" || die "help2man $page"
  grep -q '^\.SH OPTIONS' "$out/$page.1" || die "$page.1 has no OPTIONS section"
  see_also_main+="${see_also_main:+,
}.BR $page (1)"
done <<<"$subcommands"

{
  echo '[SEE ALSO]'
  [ -z "$see_also_main" ] || printf 'Each subcommand has its own page:\n%s\n' "$see_also_main"
} >"$tmp/$program.h2m"
help2man --no-info --no-discard-stderr --version-string="$program $version" --name="$summary" \
  --include="$tmp/$program.h2m" --output="$out/$program.1" "$(help_script "$program")" || die "help2man $program"
gzip -9nf "$out"/*.1
