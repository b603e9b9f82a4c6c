#!/usr/bin/env bash
# scripts/check-layers against a copy of the source tree: the tree as it is passes, and one
# planted violation of each kind fails with its own message.
# Usage: check_layers_test.sh SOURCE_TREE
set -euo pipefail
src=$(cd "${1:?usage: check_layers_test.sh SOURCE_TREE}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/veil-layers-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# What the check reads: the build description and the sources (not tests/, bench/, fuzz/).
copy() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree/scripts"
  cp -R "$src/CMakeLists.txt" "$src/cmake" "$src/include" "$src/src" "$src/apps" "$work/tree/"
  cp "$src/scripts/check-layers" "$work/tree/scripts/"
}

copy
if ! "$work/tree/scripts/check-layers" >"$work/clean.log" 2>&1; then
  fail "the tree as it is does not pass:"
  cat "$work/clean.log"
fi
grep -qx 'layering: ok' "$work/clean.log" || fail "no 'layering: ok' for the tree as it is"

# Each plant: a file to append an include to (made if absent), the include, and the line
# check-layers must print.
plants=(
  # upward: the primitives floor reaching into the services floor
  "src/crypto/hash.cc|veil/ledger/entity.h|layering: src/crypto/hash.cc (floor crypto) includes veil/ledger/, a floor above it"
  # siblings on the services floor
  "src/net/log.cc|veil/ledger/entity.h|layering: src/net/log.cc (floor net) includes veil/ledger/, a sibling on its floor"
  # siblings on the products floor: kalypso and defmi never include each other
  "src/kalypso/planted.h|veil/defmi/note.h|layering: src/kalypso/planted.h (floor kalypso) includes veil/defmi/, a sibling on its floor"
  # a lower floor the target does not link: zk links ec (and crypto, base), not sqlite
  "src/zk/transcript.cc|veil/sqlite/connection.h|layering: src/zk/transcript.cc (target veil_zk) includes veil/sqlite/, which it does not link"
  # an app including a floor it does not link: kalypso-guardian links guardian, not ledger
  "apps/kalypso-guardian/main.cc|veil/ledger/ledger.h|layering: apps/kalypso-guardian/main.cc (target kalypso-guardian) includes veil/ledger/, which it does not link"
  # a public header naming a PRIVATE dependency: the ledger links ec privately
  "include/veil/ledger/entity.h|veil/ec/scalar.h|layering: include/veil/ledger/entity.h (public header of veil_ledger) includes veil/ec/, which it does not link"
)
copy
for p in "${plants[@]}"; do
  IFS='|' read -r file inc _ <<<"$p"
  mkdir -p "$(dirname "$work/tree/$file")"
  printf '#include "%s"\n' "$inc" >>"$work/tree/$file"
done
if "$work/tree/scripts/check-layers" >"$work/planted.log" 2>&1; then
  fail "check-layers passed a tree with planted violations"
fi
for p in "${plants[@]}"; do
  IFS='|' read -r _ _ expected <<<"$p"
  grep -qxF "$expected" "$work/planted.log" || fail "missing: $expected"
done
grep -q 'layering: ok' "$work/planted.log" && fail "'layering: ok' printed for a bad tree"

if [ "$failures" -ne 0 ]; then
  echo "--- check-layers output on the planted tree:"
  cat "$work/planted.log"
  exit 1
fi
echo "check-layers: the clean tree passes; ${#plants[@]} planted violations each caught"
