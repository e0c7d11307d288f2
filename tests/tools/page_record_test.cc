// `fetch --page`'s renderings: the per-request JSON (the record's one writer, with the page's
// fields), the waterfall line, and the page's final line.
#include "tools/netstack/page_record.h"

#include <catch2/catch.hpp>

#include "net/base/net_error.h"
#include "net/http/request_record_json.h"
#include "tests/support/test_url.h"

using namespace netstack;

namespace {

using test::U;

TimeTicks At(int64_t ms) { return TimeTicks(TimeDelta(1'000'000'000 + ms * 1000)); }

PageLoadResult Page() {
  PageLoadResult page;
  page.page = U("http://a.test/");
  page.start = At(0);
  page.document_end = At(20);
  page.end = At(100);
  RequestRecord doc;
  doc.url = page.page.spec();
  doc.placement = RequestPlacement{"document", HIGHEST, page.start};
  doc.start = At(0);
  doc.end = At(20);
  doc.status = 200;
  doc.status_text = "OK";
  doc.connection.socket_id = 3;
  doc.connection.socket_source = SocketSource::kNew;
  doc.phases.dns_ms = 5;
  doc.phases.connect_ms = 5;
  doc.phases.ttfb_ms = 10;
  page.requests.push_back(doc);
  RequestRecord css;
  css.url = "http://b.test/s.css";
  css.placement = RequestPlacement{"stylesheet", HIGHEST, page.start};
  css.start = At(20);
  css.end = At(100);
  css.status = 200;
  css.connection.socket_id = 9;
  css.connection.socket_source = SocketSource::kPreconnected;
  css.phases.ttfb_ms = 60;
  css.phases.receive_ms = 20;
  page.requests.push_back(css);
  return page;
}

}  // namespace

TEST_CASE("page record: JSON is a fetch record with the page's fields", "[page]") {
  PageLoadResult page = Page();
  RequestRecord css = page.requests[1];
  css.speculative = {{"preresolved", false}, {"preconnected", 2}, {"outcome", "used"}};
  nlohmann::json j = RequestRecordToJson(css);
  CHECK(j["kind"] == "request");
  CHECK(j["url"] == "http://b.test/s.css");
  CHECK(j["type"] == "stylesheet");
  CHECK(j["priority"] == "HIGHEST");
  CHECK(j["start_ms"] == 20.0);
  CHECK(j["timing"]["total_ms"] == 80.0);
  CHECK(j["timing"]["dns_ms"] == 0.0);
  CHECK(j["socket"]["source"] == "preconnected");
  CHECK(j["socket"]["id"] == 9);
  CHECK(j["speculative"]["outcome"] == "used");
  CHECK(j["cache"] == "bypass");

  // Without a predictor, speculative is null.
  std::vector<RequestRecord> reports = PageRequestReports(page, nullptr);
  REQUIRE(reports.size() == 2);
  nlohmann::json none = RequestRecordToJson(reports[0]);
  CHECK(none.contains("speculative"));
  CHECK(none["speculative"].is_null());
  CHECK(none["socket"]["source"] == "new");
}

TEST_CASE("page record: the waterfall line draws the phases on the page's scale", "[page]") {
  PageLoadResult page = Page();
  std::string doc = PageRequestToLine(page.requests[0], page.load_ms(), 20);
  // 100 ms over 20 columns: dns 1, connect 1, wait 2 columns from the start.
  CHECK_THAT(doc, Catch::Contains("[dcww                ]"));
  CHECK_THAT(doc, Catch::Contains("3 new"));
  std::string css = PageRequestToLine(page.requests[1], page.load_ms(), 20);
  CHECK_THAT(css, Catch::Contains("[    wwwwwwwwwwwwrrrr]"));
  CHECK_THAT(css, Catch::Contains("9 preconnected"));
  CHECK_THAT(css, Catch::EndsWith("http://b.test/s.css"));

  page.requests[1].error = ERR_CONNECTION_REFUSED;
  page.requests[1].error_message = "connection refused";
  std::string failed = PageRequestToLine(page.requests[1], page.load_ms(), 20);
  CHECK_THAT(failed, Catch::Contains("error: connection refused (ERR_CONNECTION_REFUSED)"));
}

TEST_CASE("page record: the final line", "[page]") {
  PageLoadResult page = Page();
  page.failed = 1;
  nlohmann::json j = PageSummaryToJson(page, {{"policy", "chrome"}});
  CHECK(j["kind"] == "page");
  CHECK(j["requests"] == 2);
  CHECK(j["failed"] == 1);
  CHECK(j["document_ms"] == 20.0);
  CHECK(j["load_ms"] == 100.0);
  CHECK(j["predictor"]["policy"] == "chrome");
  CHECK(PageSummaryToLine(page) ==
        "page http://a.test/  2 requests (1 failed)  document 20.0 ms  load 100.0 ms");
}
