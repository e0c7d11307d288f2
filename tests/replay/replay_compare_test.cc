#include "tools/replay/report/replay_compare.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace netstack {
namespace {

TEST_CASE("Wilcoxon signed-rank matches a hand-computed case", "[replay][compare]") {
  // Differences 1, 2, -3, 4, 5, 6 and a zero (dropped): n = 6, ranks 1..6,
  // W+ = 1+2+4+5+6 = 18, W- = 3; mean n(n+1)/4 = 10.5; variance n(n+1)(2n+1)/24 = 22.75;
  // z = (18 - 10.5 - 0.5) / sqrt(22.75) = 1.46760; p = erfc(z / sqrt 2) = 0.142213.
  WilcoxonResult r = WilcoxonSignedRank({1, 2, -3, 4, 5, 6, 0});
  CHECK(r.n == 6);
  CHECK(r.w_plus == 18);
  CHECK(r.w_minus == 3);
  CHECK(r.z == Approx(1.467599).epsilon(1e-6));
  CHECK(r.p == Approx(0.142213).epsilon(1e-5));
}

TEST_CASE("Wilcoxon signed-rank averages tied ranks and corrects the variance",
          "[replay][compare]") {
  // |d| = 1, 1, 2, 2, 3: ranks 1.5, 1.5, 3.5, 3.5, 5. W+ = 1.5 + 3.5 + 3.5 + 5 = 13.5,
  // W- = 1.5. Variance 5*6*11/24 - (6 + 6)/48 = 13.5; z = (13.5 - 7.5 - 0.5) / sqrt(13.5)
  // = 1.496910; p = 0.134417.
  WilcoxonResult r = WilcoxonSignedRank({1, -1, 2, 2, 3});
  CHECK(r.w_plus == 13.5);
  CHECK(r.w_minus == 1.5);
  CHECK(r.z == Approx(1.496910).epsilon(1e-6));
  CHECK(r.p == Approx(0.134417).epsilon(1e-5));
}

TEST_CASE("Wilcoxon signed-rank: no differences, symmetric differences", "[replay][compare]") {
  WilcoxonResult none = WilcoxonSignedRank({0, 0, 0});
  CHECK(none.n == 0);
  CHECK(none.p == 1);
  WilcoxonResult sym = WilcoxonSignedRank({1, -1, 2, -2});
  CHECK(sym.w_plus == sym.w_minus);
  CHECK(sym.p == 1);
  // Large consistent shift: significant.
  std::vector<double> shift;
  for (int i = 1; i <= 30; ++i) shift.push_back(-i);
  WilcoxonResult big = WilcoxonSignedRank(shift);
  CHECK(big.w_plus == 0);
  CHECK(big.z < -4);
  CHECK(big.p < 0.001);
}

TEST_CASE("ComparePageLoads pairs pages and counts faster and slower", "[replay][compare]") {
  CompareSummary s = ComparePageLoads({100, 200, 300, 400}, {90, 200, 350, 380});
  CHECK(s.pages == 4);
  CHECK(s.faster == 2);
  CHECK(s.slower == 1);
  CHECK(s.same == 1);
  CHECK(s.median_a == 250);
  CHECK(s.median_b == 275);
  // Differences -10, 0, 50, -20: median (-10 + 0) / 2, mean 5.
  CHECK(s.median_diff == -5);
  CHECK(s.mean_diff == 5);
  nlohmann::json j = s.ToJson();
  CHECK(j["b_faster"] == 2);
  CHECK(j["wilcoxon"]["n"] == 3);
  std::string text = FormatComparison({100, 200, 300, 400}, {90, 200, 350, 380},
                                      {"https://a/", "https://b/"}, s, "rtt_ms=40", "rtt_ms=80", 3);
  CHECK(text.find("A: rtt_ms=40\nB: rtt_ms=80\n") == 0);
  CHECK(text.find("https://a/") != std::string::npos);
  CHECK(text.find("-10 ms") != std::string::npos);
  CHECK(text.find("... 1 more pages") != std::string::npos);
  CHECK(text.find("2 faster with B, 1 slower, 1 the same") != std::string::npos);
  CHECK(text.find("wilcoxon") != std::string::npos);
}

TEST_CASE("PageLoadCollector keeps loads by page index, bounded", "[replay][compare]") {
  PageLoadCollector c(3, 1);
  PageResult p;
  p.page_index = 1;
  p.load_ms = 20;
  c.OnPage(p);
  p.page_index = 0;
  p.load_ms = 10;
  p.url = "https://first/";
  c.OnPage(p);
  REQUIRE(c.loads().size() == 2);
  CHECK(c.loads()[0] == 10);
  CHECK(c.loads()[1] == 20);
  CHECK(c.labels().size() == 1);
  CHECK_FALSE(c.overflowed());
  p.page_index = 3;
  c.OnPage(p);
  CHECK(c.overflowed());
}

}  // namespace
}  // namespace netstack

namespace netstack {
namespace {

TEST_CASE("A comparison pairs onLoads where both sides have one, else last ends, and says which",
          "[replay][compare][onload]") {
  PageLoadCollector a, b;
  auto add = [](PageLoadCollector* c, uint64_t index, double load, double onload) {
    PageResult p;
    p.page_index = index;
    p.load_ms = load;
    p.onload_ms = onload;
    p.recorded_onload_ms = onload < 0 ? -1 : 100;
    c->OnPage(p);
  };
  add(&a, 0, 900, 300);
  add(&b, 0, 800, 250);
  add(&a, 1, 500, -1);  // no onLoad: last ends on both sides
  add(&b, 1, 450, -1);
  std::vector<double> pa, pb;
  size_t onload = PairPageLoads(a, b, &pa, &pb);
  CHECK(onload == 1);
  CHECK(pa == std::vector<double>{300, 500});
  CHECK(pb == std::vector<double>{250, 450});
  CompareSummary s = ComparePageLoads(pa, pb);
  s.onload_pages = onload;
  CHECK(std::string(s.metric()) == "mixed");
  CHECK(s.ToJson()["metric"] == "mixed");
  CHECK(s.ToJson()["onload_pages"] == 1);
  CHECK(s.median_diff == -50);
  std::string text = FormatComparison(pa, pb, a.labels(), s, "A", "B");
  CHECK(text.find("(page load: onLoad; 1 of 2 pages, last request's end for the others)") !=
        std::string::npos);

  // Without any onLoad: the text is as it was.
  CompareSummary plain = ComparePageLoads({1, 2}, {2, 3});
  CHECK(std::string(plain.metric()) == "last_end");
  CHECK(FormatComparison({1, 2}, {2, 3}, {}, plain, "A", "B").find("onLoad") == std::string::npos);
}

}  // namespace
}  // namespace netstack
