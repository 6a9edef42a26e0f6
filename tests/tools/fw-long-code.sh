#!/bin/sh
# fw-long-code.sh [-f MAX_FUNCTION_LINES] [-l MAX_FILE_LINES] [PATH...]: lists the C functions longer than
# MAX_FUNCTION_LINES (default 150) and the C files longer than MAX_FILE_LINES (default 1200) under the PATHs
# (default core and tests), longest first. A dev tool for the house rule "no file over about 1,200 lines, no
# function over about 150"; it relies on the GNU layout the sources use (a definition's name starts a line,
# its body opens and closes with a brace in column 0), so it needs nothing but awk. Exits 0 either way.
set -eu
max_fn=150
max_file=1200
while getopts f:l: opt; do
  case $opt in
    f) max_fn=$OPTARG ;;
    l) max_file=$OPTARG ;;
    *) echo "usage: $0 [-f MAX_FUNCTION_LINES] [-l MAX_FILE_LINES] [PATH...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- core tests
files=$(find "$@" -name '*.c' -o -name '*.h' | grep -v node_modules | sort)
[ -n "$files" ] || exit 0

echo "functions over $max_fn lines:"
# shellcheck disable=SC2086
awk -v max="$max_fn" '
  FNR == 1 { name = ""; start = 0 }
  /^[A-Za-z_][A-Za-z0-9_]* \(/ { name = $1; decl = FNR }
  /^\{/ { if (name != "" && FNR - decl < 12) start = decl; else start = 0 }
  /^\}/ { if (start > 0 && FNR - start + 1 > max) printf "%6d %s:%d %s\n", FNR - start + 1, FILENAME, start, name
          start = 0; name = "" }
' $files | sort -rn
echo "files over $max_file lines:"
# shellcheck disable=SC2086
wc -l $files | awk -v max="$max_file" '$2 != "total" && $1 > max { printf "%6d %s\n", $1, $2 }' | sort -rn
