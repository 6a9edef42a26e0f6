#!/usr/bin/env bash
# The repository stands alone: nothing in it may lean on files outside it, and its own document links
# must lead somewhere.
#
#   check-standalone.sh [ROOT]     ROOT: the source tree (default: the folder above this script)
#
# Files: `git ls-files` when ROOT is the top of a git work tree, else every file under ROOT except build
# folders (those holding meson-private/), node_modules/ and .git/. Binary files are skipped. This script
# and the fixtures of its own test (tests/data/standalone/) are left out when ROOT is the repository.
#
# Fails (exit 1, one line per finding, file:line: what) when a file is a symbolic link out of the tree, or
#   - refers to the team's shared folder beside the checkout (a path starting ../shared, or meson's
#     '..' / 'shared') or to the design notes kept there (the upper-case design and reference .md files):
#     the project's own documents are docs/design.md and docs/hardware.md;
#   - names a file docs/NAME that does not exist under ROOT (a mention like docs/layout.md anywhere in
#     the text, not part of a longer path such as another project's owner/repo/docs/...);
#   - is Markdown and links ([text](target)) to a relative target that does not exist, resolved from the
#     file's folder (web links and pure #anchors are not checked);
#   - cites a section that a document under docs/ does not have: "docs/NAME.md §N" or "§N.M" needs a
#     heading "## N." or "### N.M" there.
set -euo pipefail
export LC_ALL=C.UTF-8
# A broken check must not pass for a finding (its fixture tests expect exit 1): meson reads 99 as an error.
trap 'echo "check-standalone: internal error at line $LINENO" >&2; exit 99' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${1:-$here/..}" && pwd)
self_root=$(cd "$here/.." && pwd)

findings=0
fail() { echo "FAIL: $*"; findings=$((findings + 1)); }

# The file list, one path relative to root per line.
list_files() {
  local top=
  top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || top=
  if [[ -n $top && $(cd "$top" && pwd) == "$root" ]]; then
    git -C "$root" ls-files
  else
    (cd "$root" && find . \( -name .git -o -name node_modules -o -exec test -d '{}/meson-private' \; \) -prune \
        -o \( -type f -o -type l \) -print | sed 's|^\./||')
  fi
}

files=()
while IFS= read -r f; do
  if [[ $root == "$self_root" ]]; then
    case $f in
      tests/check-standalone.sh|tests/data/standalone/*) continue ;;
    esac
  fi
  # A link that leaves the tree (a worktree's node_modules pointing at another checkout) is a reference
  # outside it too.
  if [[ -L $root/$f ]]; then
    target=$(readlink "$root/$f")
    # The bad-model fixtures point outside on purpose (external data that must be refused).
    [[ $root == "$self_root" && $f == tests/data/bad/* ]] && continue
    if [[ $target == /* || $target == ../* || $target == */../* ]]; then
      fail "$f: a symbolic link to $target, outside the repository"
    fi
    continue
  fi
  [[ -f $root/$f ]] || continue
  files+=("$f")
done < <(list_files)
(( ${#files[@]} > 0 )) || { echo "FAIL: no files found under $root"; exit 1; }

cd "$root"

# 1. Outside references. This script is left out of the main check, so its patterns may be plain.
shared_pat="\\.\\./shared|'\\.\\.' */ *'shared'"
notes_pat='(DESIGN|REFERENCE|STYLE)\.md'
while IFS= read -r hit; do
  fail "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): refers outside the repository: $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//' | cut -c1-120)"
done < <(grep -H -I -n -E -- "$shared_pat|$notes_pat" "${files[@]}" 2>/dev/null || true)

# 2. Mentions of docs/NAME that must exist (not preceded by a path character: owner/repo/docs/... is
#    another project's file).
while IFS= read -r hit; do
  file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; path=${rest#*:}
  path=${path#"${path%%docs/*}"}
  path=${path%%[.,;:)]}
  path=${path%.}
  [[ -e $path ]] || fail "$file:$line: names $path, which does not exist"
done < <(grep -H -I -n -o -E -- '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.[A-Za-z0-9]+' "${files[@]}" 2>/dev/null || true)

# 3. Relative Markdown links.
md=()
for f in "${files[@]}"; do [[ $f == *.md ]] && md+=("$f"); done
if (( ${#md[@]} > 0 )); then
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; target=${rest#*:}
    target=${target#*"]("}; target=${target%)}
    target=${target%% *}        # [x](file "title")
    case $target in
      ''|\#*|*://*|mailto:*) continue ;;
    esac
    target=${target%%#*}
    dir=$(dirname "$file")
    [[ -e $dir/$target ]] || fail "$file:$line: links to $target, which does not exist (from $dir/)"
  done < <(grep -H -n -o -E -- '\]\([^)[:space:]]+( "[^"]*")?\)' "${md[@]}" 2>/dev/null || true)
fi

# 4. Section citations into docs/: "docs/NAME.md §N[.M]" (also "NAME.md §N" inside docs/).
while IFS= read -r hit; do
  file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; cite=${rest#*:}
  doc=${cite%% *}; doc=${doc%)}; doc=${doc#\[}; doc=${doc%]}
  sec=${cite##*§}
  sec=${sec%.}
  case $doc in
    docs/*) ;;
    *) [[ $file == docs/* ]] || continue; doc=docs/$doc ;;
  esac
  [[ -f $doc ]] || continue   # already reported by check 2 or 3
  esc=${sec//./\\.}
  grep -q -E "^#+ ${esc}(\.| )" "$doc" ||
    fail "$file:$line: cites $doc §$sec, which has no heading numbered $sec"
done < <(grep -H -I -n -o -E -- '(docs/)?[a-z0-9-]+\.md\]? §[0-9]+(\.[0-9]+)*' "${files[@]}" 2>/dev/null || true)

if (( findings > 0 )); then
  echo "check-standalone: $findings finding(s) in $root"
  exit 1
fi
echo "check-standalone: ${#files[@]} files in $root refer to nothing outside it; every docs/ link resolves"
