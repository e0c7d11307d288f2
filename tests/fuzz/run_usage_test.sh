#!/usr/bin/env bash
# Bad usage of tools/fuzz/run and of run-tests' fuzz settings: exit 2 with one line naming what
# was wrong, before anything is built. Usage: run_usage_test.sh REPO_ROOT
set -uo pipefail
root=$1
failures=0

# expect_usage_error WANT_TEXT COMMAND...: exit status 2, stderr one line containing WANT_TEXT.
expect_usage_error() {
  local want=$1
  shift
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne 2 || $(printf '%s\n' "$err" | wc -l) -ne 1 || "$err" != *"$want"* ]]; then
    echo "FAIL: $* -> exit $rc, stderr: $err (wanted exit 2 and one line with '$want')"
    failures=$((failures + 1))
  fi
}

run="$root/tools/fuzz/run"
expect_usage_error "--time" "$run" --time abc
expect_usage_error "--time" "$run" --time 0
expect_usage_error "--time" "$run" --time=-5
expect_usage_error "--time" "$run" --time
expect_usage_error "fuzz_nosuch" "$run" nosuch
expect_usage_error "--bogus" "$run" --bogus
expect_usage_error "NETSTACK_FUZZ_SECONDS" env NETSTACK_FUZZ_SECONDS=ten \
  "$root/tools/scripts/run-tests" --fuzz

# --list names every target, one per line.
list=$("$run" --list)
for src in "$root"/tests/fuzz/fuzz_*.cc; do
  name=$(basename "$src" .cc)
  [[ "$name" == fuzz_driver_main ]] && continue
  if ! grep -qx "$name" <<<"$list"; then
    echo "FAIL: --list does not name $name"
    failures=$((failures + 1))
  fi
done

[[ $failures -eq 0 ]] && echo "all usage errors reported"
exit $((failures > 0))
