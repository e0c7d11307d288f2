// Absolute http(s) URLs, parsed with uriparser (RFC 3986), and their origins.
#ifndef NET_BASE_URL_H_
#define NET_BASE_URL_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace netstack {

// What a socket pool group is keyed by: {scheme, host, port}.
struct SchemeHostPort {
  std::string scheme;  // "http" or "https"
  std::string host;    // lowercase; an IPv6 literal without brackets
  uint16_t port = 0;

  // "https://example.com:443" (brackets around IPv6 hosts); the port is always written.
  std::string ToString() const;
  bool operator==(const SchemeHostPort&) const = default;
  auto operator<=>(const SchemeHostPort&) const = default;
};

class Url {
 public:
  Url() = default;

  // Parses an absolute URL. Returns OK, ERR_INVALID_URL (not a URL, no host, bad port) or
  // ERR_UNKNOWN_URL_SCHEME (anything but http and https); on error `message` says what was
  // wrong, naming the text.
  static int Parse(std::string_view text, Url* out, std::string* message);

  // Resolves a reference (a redirect's Location) against this URL; same results as Parse.
  int Resolve(std::string_view reference, Url* out, std::string* message) const;

  const std::string& scheme() const { return scheme_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  // The request target: path and query, "/" when the URL has no path. Never a fragment.
  const std::string& path_and_query() const { return path_and_query_; }
  // The normalized URL without its fragment.
  const std::string& spec() const { return spec_; }
  bool is_https() const { return scheme_ == "https"; }
  bool is_valid() const { return !scheme_.empty(); }
  // The Host header value: the host (bracketed if IPv6) plus ":port" when not the default.
  std::string HostHeader() const;
  SchemeHostPort scheme_host_port() const { return {scheme_, host_, port_}; }

  static uint16_t DefaultPort(std::string_view scheme);

  // Builds a URL from parts already validated (lowercase scheme http/https, lowercase host,
  // port > 0, a path_and_query starting with "/"). For code that has parsed them itself.
  static Url FromComponents(std::string scheme, std::string host, uint16_t port,
                            std::string path_and_query);

 private:
  std::string scheme_;
  std::string host_;
  uint16_t port_ = 0;
  std::string path_and_query_;
  std::string spec_;
};

}  // namespace netstack

#endif  // NET_BASE_URL_H_
