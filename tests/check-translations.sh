#!/usr/bin/env bash
# Every user-visible string is translated: the sources' current strings (not the committed .pot) are
# extracted, merged into po/zh_CN.po, and the result must have no untranslated or fuzzy entry and pass
# msgfmt's format checks. Also every source file that marks strings must be listed in po/POTFILES.in.
# Usage: check-translations.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: check-translations.sh SOURCE_ROOT}
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

unlisted=$(grep -lE '\b(N?_|C_)\("' $(find app core views -name '*.c' -o -name '*.h' | sort) |
           sort | comm -23 - <(grep -v '^#' po/POTFILES.in | sort) || true)
if [ -n "$unlisted" ]; then
  echo "FAIL: files with translatable strings missing from po/POTFILES.in:"; echo "$unlisted"; exit 1
fi
# The language of each file from its name: C for .c/.h, GtkBuilder for .ui, AppStream and desktop entries
# through gettext's ITS rules, as meson's i18n module extracts them. g_dngettext carries the plurals.
xgettext --from-code=UTF-8 -k_ -kN_ -kC_:1c,2 -kNC_:1c,2 -kg_dngettext:2,3 -f po/POTFILES.in -o "$work/current.pot"
for lang in $(grep -v '^#' po/LINGUAS); do
  msgmerge -q --no-fuzzy-matching "po/$lang.po" "$work/current.pot" -o "$work/$lang.po"
  stats=$(msgfmt -c --statistics -o /dev/null "$work/$lang.po" 2>&1)
  echo "$lang: $stats"
  case "$stats" in
    *untranslated*|*fuzzy*) echo "FAIL: po/$lang.po is incomplete; update it from the sources"; exit 1 ;;
  esac
done
