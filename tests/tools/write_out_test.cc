#include "tools/netstack/write_out.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace netstack;

namespace {

std::string Render(const std::string& format, const WriteOutValues& v,
                   std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> ignored;
  WriteOutFormat f(format, warnings ? warnings : &ignored);
  std::string out;
  f.Render(v, &out);
  return out;
}

// A record of a 200 over a new TLS connection, with known phases.
RequestRecord TlsRecord() {
  RequestRecord r;
  r.url = "https://a.test/start";
  r.final_url = "https://a.test/final?q=1";
  r.method = "PUT";
  r.redirects = {"https://a.test/final?q=1"};
  r.status = 201;
  r.body_bytes = 5000;
  r.transfer_bytes = 1234;
  r.start = TimeTicks{} + TimeDelta(1'000'000);
  r.end = TimeTicks{} + TimeDelta(1'250'000);  // 250 ms
  r.phases.queued_ms = 10;
  r.phases.dns_ms = 20;
  r.phases.connect_ms = 30;
  r.phases.tls_ms = 40;
  r.phases.send_ms = 1;
  r.phases.ttfb_ms = 99;
  r.phases.receive_ms = 50;
  r.connection.socket_source = SocketSource::kNew;
  r.connection.peer_address = "[::1]:8443";
  r.cache = CacheDisposition::kMiss;
  return r;
}

}  // namespace

TEST_CASE("write-out: curl's variables from a record") {
  const WriteOutValues v =
      WriteOutValuesFromRecord(TlsRecord(), "text/html; charset=utf-8", 321, "1.1", 87, 5);
  CHECK(Render("%{http_code} %{response_code}", v) == "201 201");
  // Running sums of the phases, seconds with six decimals.
  CHECK(Render("%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer}", v) ==
        "0.030000 0.060000 0.100000 0.100000");
  CHECK(Render("%{time_starttransfer} %{time_total}", v) == "0.200000 0.250000");
  // size_download is the body as carried, not decoded.
  CHECK(Render("%{size_download} %{size_header} %{size_request} %{size_upload}", v) ==
        "1234 321 87 5");
  CHECK(Render("%{num_connects} %{num_redirects}", v) == "1 1");
  CHECK(Render("%{url} %{url_effective}", v) == "https://a.test/start https://a.test/final?q=1");
  CHECK(Render("%{content_type}|%{remote_ip}|%{remote_port}", v) ==
        "text/html; charset=utf-8|::1|8443");
  CHECK(Render("%{http_version} %{scheme} %{method}", v) == "1.1 HTTPS PUT");
  CHECK(Render("%{cache} %{socket_reused}", v) == "miss 0");
}

TEST_CASE("write-out: no TLS and a reused socket and a cache hit and a failure") {
  RequestRecord r = TlsRecord();
  r.phases.tls_ms = 0;
  r.connection.socket_source = SocketSource::kReused;
  WriteOutValues v = WriteOutValuesFromRecord(r, "", 0, "1.1", 0, 0);
  // curl's time_appconnect is 0 without TLS.
  CHECK(Render("%{time_appconnect} %{num_connects} %{socket_reused}", v) == "0.000000 0 1");

  RequestRecord hit;
  hit.url = hit.final_url = "http://a.test/";
  hit.status = 200;
  hit.cache = CacheDisposition::kHit;
  hit.start = TimeTicks{} + TimeDelta(1000);
  hit.end = TimeTicks{} + TimeDelta(1500);
  v = WriteOutValuesFromRecord(hit, "", 0, "1.1", 0, 0);
  CHECK(Render("%{cache} %{remote_ip}|%{remote_port}|%{time_total}", v) == "hit ||0.000500");

  RequestRecord failed;
  failed.url = failed.final_url = "http://a.test/";
  failed.error = ERR_CONNECTION_REFUSED;
  failed.error_message = "connection refused";
  v = WriteOutValuesFromRecord(failed, "", 0, "1.1", 0, 0);
  CHECK(Render("%{http_code} %{http_version} %{time_starttransfer} %{errormsg}", v) ==
        "000 0 0.000000 connection refused");
}

TEST_CASE("write-out: escapes and %% and literal text and the unknown-variable warning of curl") {
  WriteOutValues v;
  v.status = 404;
  v.url_effective = "http://a.test/";
  CHECK(Render("code=%{http_code}\\n", v) == "code=404\n");
  CHECK(Render("a\\tb\\rc", v) == "a\tb\rc");
  CHECK(Render("100%% done", v) == "100% done");
  // Kept as typed: an unknown escape, a lone %, a %{ without its }.
  CHECK(Render("\\x %d %{http_code", v) == "\\x %d %{http_code");
  CHECK(Render("", v).empty());
  std::vector<std::string> warnings;
  CHECK(Render("[%{nope}][%{http_code}][%{nope}][%{}]", v, &warnings) == "[][404][][]");
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "unknown --write-out variable: 'nope'");
  CHECK(warnings[1] == "unknown --write-out variable: ''");
}

TEST_CASE("write-out: every documented variable is known") {
  for (const std::string& name : WriteOutFormat::KnownVariables()) {
    std::vector<std::string> warnings;
    WriteOutFormat f("%{" + name + "}", &warnings);
    CHECK(warnings.empty());
  }
  CHECK(WriteOutFormat::KnownVariables().size() == 25);
}
