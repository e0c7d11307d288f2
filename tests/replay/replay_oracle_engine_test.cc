// The oracle ceiling of whole replays (tools/replay/replay_oracle.h through ReplayPageRun): a
// chain over three new origins, and pages served from warm sockets or the cache.
#include <catch2/catch.hpp>

#include "tests/replay/replay_test_util.h"

namespace netstack {
namespace {

using test::MakeEntry;
using test::MakePage;
using test::Navigate;
using test::Recorder;
using test::Replay;

// document (a) -> stylesheet (b) -> font (c), and an image (d) of the document off the chain.
std::shared_ptr<const TracePage> ChainPage(const HeaderList& headers = {}) {
  TraceEntry document = MakeEntry("https://a.example/", 1000, 0, "document", headers);
  TraceEntry css = MakeEntry("https://b.example/s.css", 1000, 10, "stylesheet", headers);
  css.parent = 0;
  TraceEntry font = MakeEntry("https://c.example/f.woff2", 1000, 20, "font", headers);
  font.parent = 1;
  TraceEntry image = MakeEntry("https://d.example/i.png", 1000, 10, "image", headers);
  image.parent = 0;
  return MakePage("chain", {document, css, font, image});
}

TEST_CASE("Oracle: a chain over three new origins costs the sum of their setups",
          "[replay][oracle]") {
  // The worked example's network: each new origin costs DNS 50 + connect 80 + TLS 1.2 160 ms.
  Recorder recorder;
  REQUIRE(Replay(test::ExampleConfig(), {Navigate(ChainPage())}, &recorder));
  REQUIRE(recorder.pages.size() == 1);
  const PageResult& p = recorder.pages[0];
  CHECK(p.oracle_critical_requests == 3);
  CHECK(p.oracle_setup_ms == Approx(3 * 290));
  // Each request on the chain waited for its own setup: the oracle is their sum here, less than
  // the page's total connect wait (the image's setup is off the chain).
  CHECK(p.connect_wait_ms == Approx(4 * 290));
}

TEST_CASE("Oracle: a page from warm sockets or from the cache has nothing to save",
          "[replay][oracle]") {
  SECTION("warm sockets") {
    // The same page again once the first is done: every origin has an idle socket.
    Recorder recorder;
    REQUIRE(Replay(test::ExampleConfig(), {Navigate(ChainPage()), Navigate(ChainPage(), 3000)},
                   &recorder));
    REQUIRE(recorder.pages.size() == 2);
    CHECK(recorder.pages[1].sockets_reused == 4);
    CHECK(recorder.pages[1].oracle_setup_ms == 0);
    CHECK(recorder.pages[1].oracle_critical_requests == 3);
  }
  SECTION("cache") {
    HeaderList cacheable = {{"Content-Type", "text/plain"}, {"Cache-Control", "max-age=3600"}};
    Recorder recorder;
    REQUIRE(Replay(test::ExampleConfig(),
                   {Navigate(ChainPage(cacheable)), Navigate(ChainPage(cacheable), 3000)},
                   &recorder));
    REQUIRE(recorder.pages.size() == 2);
    CHECK(recorder.pages[0].oracle_setup_ms == Approx(3 * 290));
    CHECK(recorder.pages[1].cache_hits == 4);
    CHECK(recorder.pages[1].oracle_setup_ms == 0);
  }
}

}  // namespace
}  // namespace netstack
