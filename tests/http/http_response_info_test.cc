// HttpResponseInfo: the cache's stream 0 blob, its round trip and its refusals.
#include "net/http/http_response_info.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/http/http_util.h"

namespace netstack {
namespace {

std::shared_ptr<const HttpResponseHeaders> Headers(const std::string& block) {
  std::string error;
  auto headers = HttpResponseHeaders::Parse(block, &error);
  INFO(error);
  REQUIRE(headers);
  return headers;
}

HttpResponseInfo SampleInfo() {
  HttpResponseInfo info;
  info.url = "http://a.test/path?q=1";
  info.headers = Headers(
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: max-age=60\r\n"
      "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nVary: Accept-Language, Accept-Encoding\r\n"
      "Content-Length: 5\r\n\r\n");
  info.request_time = TimeFromUnixMicros(1'700'000'000'123'456);
  info.response_time = TimeFromUnixMicros(1'700'000'000'223'456);
  info.vary = {{"accept-encoding", "gzip"}, {"accept-language", std::nullopt}};
  return info;
}

void CheckSame(const HttpResponseInfo& a, const HttpResponseInfo& b) {
  CHECK(a.url == b.url);
  CHECK(a.request_time == b.request_time);
  CHECK(a.response_time == b.response_time);
  CHECK(a.vary == b.vary);
  REQUIRE(a.headers);
  REQUIRE(b.headers);
  CHECK(a.headers->ToHttpString() == b.headers->ToHttpString());
}

TEST_CASE("HttpResponseInfo round-trips through Serialize and Parse", "[response_info]") {
  HttpResponseInfo info = SampleInfo();
  std::string blob = info.Serialize();
  HttpResponseInfo back;
  std::string error;
  REQUIRE(HttpResponseInfo::Parse(blob, &back, &error));
  CHECK(error.empty());
  CheckSame(info, back);
  // Repeated headers keep their order and count.
  std::string cookies;
  CHECK(back.headers->GetNormalizedHeader("set-cookie", &cookies));
  CHECK(cookies == "a=1, b=2");

  // The blob is human-readable JSON with the documented fields.
  nlohmann::json j = nlohmann::json::parse(blob);
  CHECK(j["format"] == "netstack-http-response-info");
  CHECK(j["version"] == HttpResponseInfo::kFormatVersion);
  CHECK(j["url"] == "http://a.test/path?q=1");
  CHECK(j["headers"][0] == "HTTP/1.1 200 OK");
  CHECK(j["headers"][1] == "Content-Type: text/html");
  CHECK(j["vary"]["accept-encoding"] == "gzip");
  CHECK(j["vary"]["accept-language"].is_null());
  CHECK(j["request_time_us"] == 1'700'000'000'123'456);
}

TEST_CASE("HttpResponseInfo keeps bytes that are not UTF-8 exactly", "[response_info]") {
  HttpResponseInfo info = SampleInfo();
  auto headers = std::make_shared<HttpResponseHeaders>(*info.headers);
  headers->AddHeader("X-Latin1", std::string("caf\xe9", 4));
  info.headers = headers;
  info.url = std::string("http://a.test/\xff", 15);
  info.vary = {{"accept-language", std::string("\xfe\xff", 2)}};
  std::string blob = info.Serialize();
  CHECK(nlohmann::json::accept(blob));
  HttpResponseInfo back;
  std::string error;
  REQUIRE(HttpResponseInfo::Parse(blob, &back, &error));
  CheckSame(info, back);
  std::string value;
  REQUIRE(back.headers->GetNormalizedHeader("x-latin1", &value));
  CHECK(value == std::string("caf\xe9", 4));
  // ToJson for display is UTF-8-safe too.
  CHECK_NOTHROW(info.ToJson().dump());
  CHECK(info.ToJson()["response_time"] == "Tue, 14 Nov 2023 22:13:20 GMT");
}

TEST_CASE("HttpResponseInfo::Parse refuses malformed blobs with a one-line reason",
          "[response_info]") {
  const std::string good = SampleInfo().Serialize();
  nlohmann::json base = nlohmann::json::parse(good);
  auto with = [&](const std::string& key, nlohmann::json value) {
    nlohmann::json j = base;
    j[key] = std::move(value);
    return j.dump();
  };
  auto without = [&](const std::string& key) {
    nlohmann::json j = base;
    j.erase(key);
    return j.dump();
  };
  struct Case {
    std::string blob;
    std::string expected;  // a fragment of the message
  };
  const Case cases[] = {
      {"", "not JSON"},
      {"{", "not JSON"},
      {good.substr(0, good.size() / 2), "not JSON"},  // truncated
      {"[1,2]", "not a JSON object"},
      {"\"text\"", "not a JSON object"},
      {without("format"), "format"},
      {with("format", "something-else"), "format"},
      {without("version"), "version"},
      {with("version", "1"), "version"},
      {with("version", 2), "version 2 not supported"},
      {with("version", 0), "version 0 not supported"},
      {without("url"), "url"},
      {with("url", 5), "url"},
      {without("request_time_us"), "request_time_us"},
      {with("response_time_us", "soon"), "response_time_us"},
      {with("response_time_us", 1.5), "response_time_us"},
      // Times that would overflow the age arithmetic.
      {with("response_time_us", INT64_MIN), "response_time_us\" out of range"},
      {with("request_time_us", -1), "request_time_us\" out of range"},
      {with("request_time_us", UINT64_MAX), "request_time_us\" out of range"},
      {with("response_time_us", int64_t{253'402'300'800'000'000}), "out of range"},
      {without("headers"), "headers"},
      {with("headers", nlohmann::json::array()), "headers"},
      {with("headers", "HTTP/1.1 200 OK"), "headers"},
      {with("headers", nlohmann::json::array({"HTTP/1.1 200 OK", 7})), "not a string"},
      {with("headers", nlohmann::json::array({"garbage status line"})), "do not parse"},
      {with("headers", nlohmann::json::array({"HTTP/1.1 200 OK", "no colon here"})),
       "do not parse"},
      {with("headers", nlohmann::json::array({"HTTP/1.1 200 OK\r\nX-Smuggled: 1"})), "CR or LF"},
      {with("headers", nlohmann::json::array({nlohmann::json{{"base64", "!!!"}}})), "not a string"},
      {without("vary"), "vary"},
      {with("vary", nlohmann::json::array()), "vary"},
      {with("vary", nlohmann::json{{"accept", 3}}), "accept"},
      // Names SetVaryFromRequest could never store (found by fuzz_http_response_info: such an
      // entry did not serialize back to itself).
      {with("vary", nlohmann::json{{"HTTP/1.1 200 OK", "v"}}), "not an HTTP token"},
      {with("vary", nlohmann::json{{"", nullptr}}), "not an HTTP token"},
      {with("vary", nlohmann::json{{"Accept", "a"}, {"accept", "b"}}), "names accept twice"},
  };
  for (const Case& c : cases) {
    INFO(c.blob);
    HttpResponseInfo info;
    std::string error;
    CHECK_FALSE(HttpResponseInfo::Parse(c.blob, &info, &error));
    INFO(error);
    CHECK(error.rfind("stream 0: ", 0) == 0);
    CHECK(error.find(c.expected) != std::string::npos);
    CHECK(error.find_first_of("\r\n") == std::string::npos);
  }
  // Bytes that are not even text.
  std::string binary(64, '\0');
  HttpResponseInfo info;
  std::string error;
  CHECK_FALSE(HttpResponseInfo::Parse(binary, &info, &error));
  CHECK(error == "stream 0: not JSON");
}

// The JSON-library writer Serialize used before it wrote the blob directly: the format's
// reference. Serialize must produce the same bytes (entries already on disk were written by it,
// and `cache show` readers compare blobs).
std::string ReferenceSerialize(const HttpResponseInfo& info) {
  auto bytes = [](const std::string& s) -> nlohmann::json {
    if (SanitizeUtf8(s) == s) return s;
    HttpResponseInfo probe;  // base64 as Serialize writes it, taken from its own output
    probe.url = s;
    probe.headers = Headers("HTTP/1.1 200 OK\r\n\r\n");
    return nlohmann::json::parse(probe.Serialize())["url"];
  };
  nlohmann::json lines = nlohmann::json::array();
  lines.push_back(bytes(info.headers->GetStatusLine()));
  for (const HttpResponseHeaders::Header& h : info.headers->headers())
    lines.push_back(bytes(h.name + ": " + h.value));
  nlohmann::json vary = nlohmann::json::object();
  for (const HttpResponseInfo::VaryValue& v : info.vary)
    vary[SanitizeUtf8(v.name)] = v.value ? bytes(*v.value) : nlohmann::json(nullptr);
  return nlohmann::json{{"format", "netstack-http-response-info"},
                        {"version", HttpResponseInfo::kFormatVersion},
                        {"url", bytes(info.url)},
                        {"request_time_us", ToUnixMicros(info.request_time)},
                        {"response_time_us", ToUnixMicros(info.response_time)},
                        {"headers", std::move(lines)},
                        {"vary", std::move(vary)}}
      .dump();
}

TEST_CASE("Serialize writes the bytes of the JSON-library writer, and Parse reads both forms",
          "[response_info]") {
  std::vector<HttpResponseInfo> infos;
  infos.push_back(SampleInfo());
  {
    // Every escape: quotes, backslashes, tabs, other control bytes, DEL, UTF-8, not UTF-8.
    HttpResponseInfo info = SampleInfo();
    auto headers = std::make_shared<HttpResponseHeaders>(*info.headers);
    headers->AddHeader("X-Quote", "say \"hi\" \\ back\\slash\ttab");
    headers->AddHeader("X-Utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    headers->AddHeader("X-Latin1", std::string("caf\xe9", 4));
    info.headers = headers;
    info.url = "http://a.test/\"q\"\\x?\xc3\xa9";
    info.vary = {{"z-last", "v\"1"},
                 {"a-first", std::string("\xff", 1)},
                 {"m", std::nullopt},
                 {"a-first", "dup wins"},
                 {"ctl", std::string("a\x01"
                                     "b\x1f\x7f\x08\x0c\r\n",
                                     9)}};
    infos.push_back(info);
  }
  {
    HttpResponseInfo info = SampleInfo();
    info.vary.clear();
    info.request_time = TimeFromUnixMicros(0);
    info.url = std::string("\x80\x81", 2);
    infos.push_back(info);
  }
  for (const HttpResponseInfo& info : infos) {
    const std::string blob = info.Serialize();
    INFO(blob);
    CHECK(blob == ReferenceSerialize(info));
    HttpResponseInfo fast;
    HttpResponseInfo general;
    std::string error;
    REQUIRE(HttpResponseInfo::Parse(blob, &fast, &error));
    // The same content written another way (indented) takes the general reader.
    REQUIRE(HttpResponseInfo::Parse(nlohmann::json::parse(blob).dump(2), &general, &error));
    CheckSame(fast, general);
    CHECK(fast.vary == general.vary);
    CHECK(fast.Serialize() == blob);
  }
  // Equivalent JSON the canonical reader does not take: escapes, key order, whitespace.
  HttpResponseInfo escaped;
  std::string error;
  std::string blob = SampleInfo().Serialize();
  blob.replace(blob.find("text/html"), 9, "text\\/html");
  REQUIRE(HttpResponseInfo::Parse(blob, &escaped, &error));
  std::string type;
  CHECK(escaped.headers->GetNormalizedHeader("content-type", &type));
  CHECK(type == "text/html");
  // Keys out of order in "vary", or repeated: the general reader's rule (sorted, last wins).
  blob = SampleInfo().Serialize();
  blob.replace(blob.find("\"vary\":{"), std::string("\"vary\":{").size(),
               "\"vary\":{\"x\":\"2\",\"accept\":null,\"x\":\"3\",");
  HttpResponseInfo reordered;
  REQUIRE(HttpResponseInfo::Parse(blob, &reordered, &error));
  REQUIRE(reordered.vary.size() == 4);
  CHECK(reordered.vary[0].name == "accept");
  CHECK(reordered.vary[3] == HttpResponseInfo::VaryValue{"x", "3"});
}

TEST_CASE("SetVaryFromRequest records the request's values of Vary-named headers",
          "[response_info]") {
  HttpResponseInfo info;
  info.headers = Headers(
      "HTTP/1.1 200 OK\r\nVary: Accept-Language, accept-encoding\r\nVary: ACCEPT-language\r\n\r\n");
  HttpRequestHeaders request;
  request.SetHeader("Accept-Encoding", "gzip");
  REQUIRE(info.SetVaryFromRequest(request));
  // One entry per distinct name, lowercased; absent headers recorded as such.
  REQUIRE(info.vary.size() == 2);
  CHECK(info.vary[0] == HttpResponseInfo::VaryValue{"accept-language", std::nullopt});
  CHECK(info.vary[1] == HttpResponseInfo::VaryValue{"accept-encoding", "gzip"});

  HttpResponseInfo star;
  star.headers = Headers("HTTP/1.1 200 OK\r\nVary: Accept, *\r\n\r\n");
  CHECK_FALSE(star.SetVaryFromRequest(request));

  HttpResponseInfo none;
  none.headers = Headers("HTTP/1.1 200 OK\r\n\r\n");
  REQUIRE(none.SetVaryFromRequest(request));
  CHECK(none.vary.empty());

  // Too many names: refused (the response is not stored).
  std::string many = "HTTP/1.1 200 OK\r\nVary: ";
  for (size_t i = 0; i <= HttpResponseInfo::kMaxVaryHeaders; ++i)
    many += (i ? ", x-h" : "x-h") + std::to_string(i);
  HttpResponseInfo too_many;
  too_many.headers = Headers(many + "\r\n\r\n");
  CHECK_FALSE(too_many.SetVaryFromRequest(request));
}

}  // namespace
}  // namespace netstack
