# The internals page in a real headless Chromium (tests/internals/README.md): browser/run.sh
# starts `netstack internals` with a dnsmasq and an HTTP server on loopback and drives the page
# with playwright-core. Skips (77) without chromium/node/npm/dnsmasq unless
# NETSTACK_REQUIRE_FIXTURES=1. Screenshots: ${CMAKE_BINARY_DIR}/artifacts/internals/*.png.
add_test(NAME internals_browser
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/browser/run.sh $<TARGET_FILE:netstack>
          ${CMAKE_BINARY_DIR}/artifacts/internals)
set_tests_properties(internals_browser PROPERTIES
  SKIP_RETURN_CODE 77
  # Installing chromium or running npm ci the first time can take minutes.
  TIMEOUT 900
  LABELS "integration;browser")
