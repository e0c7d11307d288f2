// The replayed onLoad and DOMContentLoaded (tools/replay/replay_page_metrics.h): the load set,
// the recorded tail, the empty set, skipped entries, absent events.
#include "tools/replay/replay_page_metrics.h"

#include <catch2/catch.hpp>
#include <limits>

namespace netstack {
namespace {

TEST_CASE("onLoad: the load set's last replayed end plus the recorded tail", "[replay][onload]") {
  // Recorded: ends 100, 300 (in the set), 900 (after onLoad at 400); replayed 80, 250, 700.
  std::vector<PageEventEntry> entries = {{100, 80}, {300, 250}, {900, 700}};
  // 250 + (400 - 300).
  CHECK(ReplayedPageEventMs(400, entries) == 350);
  // The entry ending exactly at onLoad is in the set.
  CHECK(ReplayedPageEventMs(300, entries) == 250);
  // A later replayed end of an earlier recorded entry counts: the set's max.
  entries[0].replayed_end_ms = 500;
  CHECK(ReplayedPageEventMs(400, entries) == 600);
}

TEST_CASE("onLoad: an empty load set gives the recorded event", "[replay][onload]") {
  CHECK(ReplayedPageEventMs(50, {{100, 80}}) == 50);
  CHECK(ReplayedPageEventMs(50, {}) == 50);
}

TEST_CASE("onLoad: skipped entries (not replayed) are outside the load set", "[replay][onload]") {
  // The skipped entry recorded ending at 350 would otherwise set the tail's start.
  std::vector<PageEventEntry> entries = {{100, 120}, {350, -1}};
  CHECK(ReplayedPageEventMs(400, entries) == 120 + 300);
}

TEST_CASE("onLoad: none recorded, or values that are not numbers", "[replay][onload]") {
  CHECK(ReplayedPageEventMs(-1, {{100, 80}}) == -1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(ReplayedPageEventMs(nan, {{100, 80}}) == -1);
  // A non-finite entry is left out, not propagated.
  CHECK(ReplayedPageEventMs(200, {{nan, 80}, {100, 90}}) == 190);
}

}  // namespace
}  // namespace netstack
