#!/bin/sh
# Runs the internals page's browser test (tests/internals/README.md) with node, installing
# Debian's nodejs and npm first if node is missing (as root or with passwordless sudo). Exits 77
# (skipped) when that is impossible, unless NETSTACK_REQUIRE_FIXTURES=1 (then 1).
#   run.sh NETSTACK_BINARY ARTIFACTS_DIR
set -u
dir=$(dirname "$0")
skip() {
  if [ "${NETSTACK_REQUIRE_FIXTURES:-}" = "1" ]; then
    echo "FAIL (NETSTACK_REQUIRE_FIXTURES=1): $1" >&2
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
  else
    skip "node/npm missing and not root (tools/scripts/install-deps --browser installs them)"
  fi
  echo "node or npm missing: installing Debian's nodejs and npm"
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      nodejs npm >/dev/null 2>&1 ||
    { $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1;
      $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        nodejs npm >/dev/null 2>&1; } ||
    skip "apt-get install nodejs npm failed"
fi
exec node "$dir/internals_page.test.js" --netstack "$1" --artifacts "$2"
