#!/bin/bash
# check-bad-corpus.sh BINARY CORPUS_DIR: runs `BINARY --batch` on every file of the hostile-input corpus
# (tests/data/bad, written by make-bad-corpus.py) and checks that each is refused cleanly: exit status 2,
# stderr naming the file, no sanitizer report, under 5 s wall. The valid files of ../good must exit 0.
# Runs under prlimit (1 GiB address space, 10 s CPU; the address-space limit is left out under ASan, whose
# shadow memory needs far more) and timeout 10. Prints one line per file and "N passed, M failed".
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 FUSION_WORKBENCH CORPUS_DIR" >&2
  exit 2
fi
bin=$1
corpus=${2%/}
good=$(dirname "$corpus")/good
[ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 1; }
[ -d "$corpus" ] || { echo "not a folder: $corpus" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# No host probe, no cache written to the real home
export FW_HOST_PROFILE_NO_PROBE=1 XDG_CACHE_HOME="$tmp/cache" LC_ALL=C.UTF-8

limits=(prlimit --cpu=10)
if [ -n "${FW_SANITIZE:-}" ] && [ "${FW_SANITIZE}" != none ] || ldd "$bin" 2>/dev/null | grep -q 'libasan'; then
  echo "# sanitizer build: no address-space limit"
else
  limits+=(--as=1073741824)
fi
if ! prlimit --cpu=10 true 2>/dev/null; then
  echo "# prlimit unusable here: running without resource limits"
  limits=()
fi

passed=0
failed=0
failures=()

# run EXPECTED_STATUS NAME_TO_FIND LABEL ARGS...
run() {
  local expect=$1 name=$2 label=$3
  shift 3
  local start end ms status reason=""
  start=$(date +%s%N)
  "${limits[@]}" timeout 10 "$bin" --batch "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  if [ "$status" -ne "$expect" ]; then
    reason="exit status $status, expected $expect"
    [ "$status" -eq 124 ] && reason="$reason (timed out)"
    [ "$status" -ge 128 ] && reason="$reason (signal $((status - 128)))"
  elif grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
    reason="sanitizer report"
  elif [ "$expect" -ne 0 ] && ! grep -q -F -- "$name" "$tmp/err"; then
    reason="stderr does not name $name"
  elif [ "$ms" -ge 5000 ]; then
    reason="took ${ms} ms (limit 5000)"
  fi
  if [ -z "$reason" ]; then
    passed=$((passed + 1))
    printf 'ok   %-58s %5d ms  %s\n' "$label" "$ms" "$(head -c 150 "$tmp/err" | head -n 1)"
  else
    failed=$((failed + 1))
    failures+=("$label: $reason")
    printf 'FAIL %-58s %5d ms  %s\n' "$label" "$ms" "$reason"
    sed -n '1,5s/^/     | /p' "$tmp/err"
  fi
}

# The YAML option for a file, from its name
yaml_option() {
  case $(basename "$1") in
    yaml-rules-*) echo --rules ;;
    yaml-profile-*) echo --profile ;;
    yaml-whitelist-*) echo --whitelist ;;
    *) return 1 ;;
  esac
}

base=$good/base.onnx
[ -f "$base" ] || { echo "missing $base" >&2; exit 1; }

# Good files first: if these fail, every bad result below means nothing.
run 0 base.onnx "good/base.onnx" "$base"
for f in "$good"/yaml-*.yaml; do
  [ -e "$f" ] || continue
  run 0 "$(basename "$f")" "good/$(basename "$f")" "$base" "$(yaml_option "$f")" "$f"
done

# Bad ONNX files and folders
for f in "$corpus"/*.onnx "$corpus"/*/model.onnx; do
  [ -e "$f" ] || continue
  rel=${f#"$corpus"/}
  run 2 "$rel" "$rel" "$f"   # for a folder case, FOLDER/model.onnx
done

# Bad YAML files, given next to the good model
for f in "$corpus"/yaml-*.yaml; do
  [ -e "$f" ] || continue
  opt=$(yaml_option "$f") || { echo "cannot tell the option for $f" >&2; exit 1; }
  run 2 "$(basename "$f")" "$(basename "$f")" "$base" "$opt" "$f"
done

# 10 MB scalars, too big to commit: written here
big() {
  head -c 10485760 /dev/zero | tr '\0' "$1"
}
{ printf 'version: 1\nrules:\n  - name: '; big a; printf '\n    pattern: [Relu]\n'; } >"$tmp/yaml-rules-10mb-scalar.yaml"
{ printf 'version: 1\nname: '; big b; printf '\nkind: npu\n'; } >"$tmp/yaml-profile-10mb-scalar.yaml"
{ printf 'version: 1\nentries:\n  - pattern: elementwise_chain\n    decision: accept\n    why: "'; big c; printf '"\n'; } \
  >"$tmp/yaml-whitelist-10mb-scalar.yaml"
for f in "$tmp"/yaml-*-10mb-scalar.yaml; do
  run 2 "$(basename "$f")" "(generated) $(basename "$f")" "$base" "$(yaml_option "$f")" "$f"
done

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
  for line in "${failures[@]}"; do
    echo "failed: $line"
  done
  exit 1
fi
exit 0
