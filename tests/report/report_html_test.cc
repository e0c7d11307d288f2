#include "tools/replay/report/report_html.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace netstack;

namespace {

RequestRecord MakeRequest(uint64_t page, int entry, std::string url) {
  const TimeTicks page_start = TimeTicks(TimeDelta(1'000'000));
  RequestRecord r;
  r.url = std::move(url);
  r.method = "GET";
  r.placement = RequestPlacement{entry == 0 ? "document" : "image", MEDIUM, page_start};
  r.entry = ReplayEntryRef{page, entry, "a.test"};
  r.model = RequestModel();
  r.status = 200;
  r.cache = CacheDisposition::kMiss;
  r.body_bytes = r.transfer_bytes = 1000 + entry;
  r.phases.dns_ms = entry == 0 ? 20 : 0;
  r.phases.connect_ms = entry == 0 ? 40 : 0;
  r.phases.tls_ms = entry == 0 ? 40 : 0;
  r.phases.ttfb_ms = 50;
  r.phases.receive_ms = 5;
  r.start = page_start + Milliseconds(10 * entry);
  r.end = r.start + Milliseconds(static_cast<int64_t>(r.phases.connect_wait_ms() +
                                                      r.phases.ttfb_ms + r.phases.receive_ms));
  r.connection.socket_id = 1;
  r.connection.socket_source = entry != 0 ? SocketSource::kReused : SocketSource::kNew;
  return r;
}

PageResult MakePage(uint64_t index, int requests) {
  PageResult p;
  p.page_index = index;
  p.id = "page_" + std::to_string(index);
  p.url = "https://a.test/p" + std::to_string(index);
  p.requests = requests;
  p.load_ms = 200 + index;
  return p;
}

// Feeds `pages` pages of `per_page` requests each.
void Feed(ReplayReport* report, int pages, int per_page) {
  for (int p = 0; p < pages; ++p) {
    for (int e = 0; e < per_page; ++e) {
      report->OnRequest(
          MakeRequest(p, e, "https://a.test/p" + std::to_string(p) + "/" + std::to_string(e)));
    }
    report->OnPage(MakePage(p, per_page));
  }
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// A small well-formedness check: every start tag is closed in order, except HTML's void
// elements and self-closed tags; a '<' that does not start a tag fails (text must be escaped).
std::string CheckTags(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    if (html.compare(i, 9, "<!DOCTYPE") == 0) {
      i = html.find('>', i);
      continue;
    }
    size_t end = html.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = html.substr(i + 1, end - i - 1);
    bool closing = !tag.empty() && tag[0] == '/';
    bool self_closed = !tag.empty() && tag.back() == '/';
    size_t name_start = closing ? 1 : 0;
    size_t name_end = tag.find_first_of(" \t\n/", name_start);
    std::string name = tag.substr(
        name_start, name_end == std::string::npos ? std::string::npos : name_end - name_start);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
      return "stray '<' at " + std::to_string(i) + ": " + html.substr(i, 40);
    }
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
      }
      stack.pop_back();
    } else if (!self_closed && !kVoid.count(name)) {
      stack.push_back(name);
    }
    i = end + 1;
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  return "";
}

}  // namespace

TEST_CASE("report: trace strings are escaped everywhere") {
  ReplayReport report("trace <b>bold</b>.har");
  RequestRecord r = MakeRequest(0, 0, "https://evil.test/<script>alert(1)</script>?a=\"x\"&b='y'");
  r.entry->host = "<img src=x onerror=alert(2)>";
  r.placement->type = "<type>";
  r.error = ERR_FAILED;
  r.error_message = "<err>";
  report.OnRequest(r);
  PageResult p = MakePage(0, 1);
  p.id = "<page id>";
  p.url = "https://evil.test/<script>";
  p.source = "<source>";
  report.OnPage(p);
  nlohmann::json config = {{"<key>", "<value>"}, {"nested", {{"k", "</td>"}}}};
  report.SetConfig(config);
  report.SetComparison("<a>", "<b>");
  report.AddComparedPage(p, p);

  std::string html = report.Render(ReplayTotals{});
  CHECK(html.find("<script>") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<b>bold") == std::string::npos);
  CHECK(html.find("<type>") == std::string::npos);
  CHECK(html.find("<page id>") == std::string::npos);
  CHECK(html.find("<source>") == std::string::npos);
  CHECK(html.find("<key>") == std::string::npos);
  CHECK(html.find("</td>\"") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("&lt;page id&gt;") != std::string::npos);
  CHECK(html.find("&lt;a&gt; vs &lt;b&gt;") != std::string::npos);
  CHECK(CheckTags(html) == "");
}

TEST_CASE("report: well-formed, self-contained page") {
  ReplayReport report("t");
  Feed(&report, 3, 5);
  ReplayTotals totals;
  totals.pages = 3;
  totals.requests = 15;
  std::string html = report.Render(totals);
  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(html.size() > 16);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  CHECK(CheckTags(html) == "");
  // Nothing fetched: no scripts, no external resources.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=\"http") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  // A waterfall per page, the legend, the load line.
  CHECK(Count(html, "<svg class=\"wf\"") == 3);
  CHECK(html.find("class=\"legend\"") != std::string::npos);
  CHECK(Count(html, "stroke=\"#0000ff\"") == 3);
  // WebPageTest's colours: DNS, connect, TLS on the first request of each page.
  CHECK(Count(html, "fill=\"#007b84\"") == 3);
  CHECK(Count(html, "fill=\"#ff7b00\"") == 3);
  CHECK(Count(html, "fill=\"#cf25df\"") == 3);
  // Socket reuse is marked.
  CHECK(Count(html, " reused</text>") == 12);
  CHECK(Count(html, "s1 new</tspan>") == 3);
}

TEST_CASE("report: same results give the same bytes") {
  ReplayReport a("t"), b("t");
  Feed(&a, 5, 7);
  Feed(&b, 5, 7);
  CHECK(a.Render(ReplayTotals{}) == b.Render(ReplayTotals{}));
}

TEST_CASE("report: waterfalls are kept for the first pages only") {
  ReplayReport report("t");
  report.SetMaxWaterfallPages(3);
  Feed(&report, 10, 4);
  CHECK(report.waterfall_pages() == 3);
  CHECK(report.pages_without_waterfall() == 7);
  std::string html = report.Render(ReplayTotals{});
  CHECK(Count(html, "<svg class=\"wf\"") == 3);
  CHECK(html.find("7 more pages are not listed") != std::string::npos);
  CHECK(html.find("id=\"page-2\"") != std::string::npos);
  CHECK(html.find("id=\"page-3\"") == std::string::npos);
  // Every page still counts in the distributions.
  CHECK(html.find("10 values") != std::string::npos);  // page load histogram
  CHECK(html.find("40 values") != std::string::npos);  // request histograms
}

TEST_CASE("report: rows per page are bounded") {
  ReplayReport report("t");
  size_t n = ReplayReport::kMaxRowsPerPage + 5;
  for (size_t e = 0; e < n; ++e) {
    report.OnRequest(MakeRequest(0, static_cast<int>(e), "https://a.test/" + std::to_string(e)));
  }
  report.OnPage(MakePage(0, static_cast<int>(n)));
  std::string html = report.Render(ReplayTotals{});
  CHECK(html.find("5 more requests of this page are not drawn") != std::string::npos);
  CHECK(Count(html, "<g><title>https://a.test/") == ReplayReport::kMaxRowsPerPage);
}

TEST_CASE("report: interleaved pages keep their own requests") {
  ReplayReport report("t");
  report.OnRequest(MakeRequest(0, 0, "https://a.test/zero/0"));
  report.OnRequest(MakeRequest(1, 0, "https://a.test/one/0"));
  report.OnRequest(MakeRequest(0, 1, "https://a.test/zero/1"));
  report.OnPage(MakePage(1, 1));
  report.OnPage(MakePage(0, 2));
  std::string html = report.Render(ReplayTotals{});
  size_t page0 = html.find("id=\"page-0\"");
  size_t page1 = html.find("id=\"page-1\"");
  REQUIRE(page0 != std::string::npos);
  REQUIRE(page1 != std::string::npos);
  CHECK(page0 < page1);  // by page index, not completion order
  std::string first = html.substr(page0, page1 - page0);
  CHECK(first.find("zero/1") != std::string::npos);
  CHECK(first.find("one/0") == std::string::npos);
}

TEST_CASE("report: comparison summary is paired per page") {
  ReplayReport report("t");
  report.SetComparison("rtt 40", "rtt 80");
  for (int i = 0; i < 4; ++i) {
    PageResult a = MakePage(i, 1), b = MakePage(i, 1);
    a.load_ms = 100;
    b.load_ms = i < 3 ? 150 : 100;  // 3 slower, 1 equal
    report.AddComparedPage(a, b);
  }
  std::string html = report.Render(ReplayTotals{});
  CHECK(html.find("faster on 0 pages, slower on 3, equal on 1") != std::string::npos);
  CHECK(html.find("is 38 ms per page on average (37.5 % per page)") != std::string::npos);
}

TEST_CASE("report: Write writes what Render returns, and names the file on failure") {
  ReplayReport report("t");
  Feed(&report, 2, 3);
  std::string path = "report_test_out.html";
  std::string error;
  REQUIRE(report.Write(path, ReplayTotals{}, &error));
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  CHECK(content.str() == report.Render(ReplayTotals{}));
  std::remove(path.c_str());

  CHECK_FALSE(report.Write("/nonexistent-dir/x.html", ReplayTotals{}, &error));
  CHECK(error == "cannot write /nonexistent-dir/x.html: No such file or directory");
}

namespace {

TEST_CASE("ReplayReport: pages with an onLoad use it as the page load, and say so",
          "[report][onload]") {
  ReplayReport report("onload");
  for (int e = 0; e < 2; ++e)
    report.OnRequest(MakeRequest(0, e, "https://a.test/" + std::to_string(e)));
  PageResult p = MakePage(0, 2);
  p.load_ms = 900;
  p.onload_ms = 400;
  p.recorded_onload_ms = 380;
  report.OnPage(p);
  report.OnPage(MakePage(1, 0));  // no onLoad: its last request's end
  ReplayTotals totals;
  totals.pages = 2;
  totals.warm_connections = 3;
  totals.recorded_failures = 1;
  totals.skipped = 2;
  totals.skipped_unfinished = 2;
  std::string html = report.Render(totals);
  CHECK(html.find("onLoad; 1 of 2 pages, last request") != std::string::npos);
  // The page's note and its waterfall's dashed onLoad line.
  CHECK(html.find("onLoad 400") != std::string::npos);
  CHECK(html.find("stroke-dasharray=\"4 3\"><title>onLoad") != std::string::npos);
  CHECK(html.find("connections warm at start") != std::string::npos);
  CHECK(html.find("unfinished") != std::string::npos);

  // The comparison pairs onLoads when both sides have one.
  PageResult b = p;
  b.onload_ms = 300;
  report.AddComparedPage(p, b);
  html = report.Render(totals);
  CHECK(html.find("Page load: onLoad; 1 of 1 pages, the same figure on both sides.") !=
        std::string::npos);
}

}  // namespace
