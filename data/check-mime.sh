#!/bin/sh
# check-mime.sh UPDATE_MIME_DATABASE PACKAGE_XML: builds a MIME database from the package file alone in a
# temporary folder, as update-mime-database does on install, and checks that it maps *.onnx to
# application/x-onnx with its comment; a package file that does not parse leaves no such mapping.
set -eu
update_mime_database=$1
package=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mime/packages"
cp "$package" "$tmp/mime/packages/"
XDG_DATA_HOME="$tmp" XDG_DATA_DIRS="$tmp" PKGSYSTEM_ENABLE_FSYNC=0 "$update_mime_database" "$tmp/mime" >"$tmp/log" 2>&1 || {
  cat "$tmp/log"
  exit 1
}
# Anything update-mime-database said about our file is a defect in it (unknown elements, bad globs).
if [ -s "$tmp/log" ]; then
  cat "$tmp/log"
  exit 1
fi
if ! grep -q '^[0-9]*:application/x-onnx:\*\.onnx$' "$tmp/mime/globs2"; then
  echo "check-mime: *.onnx is not mapped to application/x-onnx in globs2:" >&2
  cat "$tmp/mime/globs2" >&2
  exit 1
fi
if ! grep -q '<comment>ONNX model</comment>' "$tmp/mime/application/x-onnx.xml"; then
  echo "check-mime: application/x-onnx has no comment:" >&2
  cat "$tmp/mime/application/x-onnx.xml" >&2
  exit 1
fi
echo "check-mime: *.onnx → application/x-onnx"
