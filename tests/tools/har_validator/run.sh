#!/bin/sh
# Validates the HAR files netstack writes with a maintained HAR 1.2 validator from npm
# (tests/tools/README.md): har_validator.test.js. Exits 77 (skipped) without node and npm,
# unless NETSTACK_REQUIRE_FIXTURES=1 (then 1).
#   run.sh NETSTACK_BINARY WORK_DIR
set -u
dir=$(dirname "$0")
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "${NETSTACK_REQUIRE_FIXTURES:-}" = "1" ]; then
    echo "FAIL (NETSTACK_REQUIRE_FIXTURES=1): node/npm missing (tools/scripts/install-deps --browser installs them)" >&2
    exit 1
  fi
  echo "SKIP: node/npm missing (tools/scripts/install-deps --browser installs them)"
  exit 77
fi
exec node "$dir/har_validator.test.js" --netstack "$1" --work "$2"
