// libFuzzer target for URL parsing and redirect resolution (net/base/url.h). Input: a URL, and
// after the first '\n' a reference (a redirect's Location) resolved against it. Promises
// checked: a parsed URL is http(s) with a host, a port and an origin-form target, no fragment;
// its spec parses back to the same URL (parsing is idempotent); a resolved reference obeys the
// same; errors are OK's opposite and come with a one-line message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/base/net_error.h"
#include "net/base/url.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void CheckUrl(int rv, const netstack::Url& url, const std::string& message) {
  if (rv != netstack::OK) {
    FUZZ_CHECK(rv == netstack::ERR_INVALID_URL || rv == netstack::ERR_UNKNOWN_URL_SCHEME);
    FUZZ_CHECK(!message.empty());
    FUZZ_CHECK(message.find('\n') == std::string::npos);
    return;
  }
  FUZZ_CHECK(url.is_valid());
  FUZZ_CHECK(url.scheme() == "http" || url.scheme() == "https");
  FUZZ_CHECK(!url.host().empty());
  FUZZ_CHECK(url.port() > 0);
  FUZZ_CHECK(!url.path_and_query().empty() && url.path_and_query()[0] == '/');
  FUZZ_CHECK(url.spec().find('#') == std::string::npos);
  FUZZ_CHECK(!url.HostHeader().empty());
  netstack::Url again;
  std::string again_message;
  FUZZ_CHECK(netstack::Url::Parse(url.spec(), &again, &again_message) == netstack::OK);
  FUZZ_CHECK(again.spec() == url.spec());
  FUZZ_CHECK(again.scheme_host_port() == url.scheme_host_port());
  FUZZ_CHECK(again.path_and_query() == url.path_and_query());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t eol = text.find('\n');
  std::string_view base_text = text.substr(0, eol);
  netstack::Url base;
  std::string message;
  int rv = netstack::Url::Parse(base_text, &base, &message);
  CheckUrl(rv, base, message);
  if (rv != netstack::OK || eol == std::string_view::npos) return 0;
  netstack::Url resolved;
  message.clear();
  rv = base.Resolve(text.substr(eol + 1), &resolved, &message);
  CheckUrl(rv, resolved, message);
  return 0;
}
