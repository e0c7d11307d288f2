#include "net/base/url.h"

#include <uriparser/Uri.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>

#include "net/base/net_error.h"
#include "net/base/string_util.h"

namespace netstack {
namespace {

std::string Range(const UriTextRangeA& r) {
  if (!r.first || !r.afterLast) return {};
  return std::string(r.first, r.afterLast);
}

// Owns a parsed UriUriA so every return path frees it.
struct UriHolder {
  UriUriA uri{};
  bool parsed = false;
  ~UriHolder() {
    if (parsed) uriFreeUriMembersA(&uri);
  }
};

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text.substr(0, 200)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (text.size() > 200) out += "...";
  return out + "\"";
}

int FromParsed(const UriUriA& uri, std::string_view original, Url* out, std::string* message);

}  // namespace

std::string SchemeHostPort::ToString() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return scheme + "://" + h + ":" + std::to_string(port);
}

uint16_t Url::DefaultPort(std::string_view scheme) {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  return 0;
}

Url Url::FromComponents(std::string scheme, std::string host, uint16_t port,
                        std::string path_and_query) {
  Url url;
  url.scheme_ = std::move(scheme);
  url.host_ = std::move(host);
  url.port_ = port;
  url.path_and_query_ = std::move(path_and_query);
  url.spec_ = url.scheme_ + "://" + url.HostHeader() + url.path_and_query_;
  return url;
}

std::string Url::HostHeader() const {
  std::string h = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  if (port_ != DefaultPort(scheme_)) h += ":" + std::to_string(port_);
  return h;
}

int Url::Parse(std::string_view text, Url* out, std::string* message) {
  constexpr size_t kMaxUrlLength = 2 * 1024 * 1024;  // Chrome's limit.
  if (text.size() > kMaxUrlLength) {
    *message = "URL longer than 2 MiB";
    return ERR_INVALID_URL;
  }
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      *message = "invalid URL " + Quote(text) + ": contains a space or control character";
      return ERR_INVALID_URL;
    }
  }
  UriHolder holder;
  const char* error_pos = nullptr;
  if (uriParseSingleUriExA(&holder.uri, text.data(), text.data() + text.size(), &error_pos) !=
      URI_SUCCESS) {
    size_t at = error_pos ? static_cast<size_t>(error_pos - text.data()) : 0;
    *message = "invalid URL " + Quote(text) + ": syntax error at character " + std::to_string(at);
    return ERR_INVALID_URL;
  }
  holder.parsed = true;
  return FromParsed(holder.uri, text, out, message);
}

int Url::Resolve(std::string_view reference, Url* out, std::string* message) const {
  UriHolder base, ref, result;
  const char* error_pos = nullptr;
  if (uriParseSingleUriExA(&base.uri, spec_.data(), spec_.data() + spec_.size(), &error_pos) !=
      URI_SUCCESS) {
    *message = "invalid base URL " + Quote(spec_);
    return ERR_INVALID_URL;
  }
  base.parsed = true;
  if (uriParseSingleUriExA(&ref.uri, reference.data(), reference.data() + reference.size(),
                           &error_pos) != URI_SUCCESS) {
    *message = "invalid URL reference " + Quote(reference);
    return ERR_INVALID_URL;
  }
  ref.parsed = true;
  if (uriAddBaseUriA(&result.uri, &ref.uri, &base.uri) != URI_SUCCESS) {
    *message = "cannot resolve " + Quote(reference) + " against " + Quote(spec_);
    return ERR_INVALID_URL;
  }
  result.parsed = true;
  uriNormalizeSyntaxA(&result.uri);
  return FromParsed(result.uri, reference, out, message);
}

namespace {

int FromParsed(const UriUriA& uri, std::string_view original, Url* out, std::string* message) {
  std::string scheme = ToLowerAscii(Range(uri.scheme));
  if (scheme.empty()) {
    *message = "invalid URL " + Quote(original) + ": no scheme (try http://...)";
    return ERR_INVALID_URL;
  }
  if (scheme != "http" && scheme != "https") {
    *message = "unsupported URL scheme \"" + scheme + "\" in " + Quote(original) +
               " (only http and https)";
    return ERR_UNKNOWN_URL_SCHEME;
  }
  std::string host = ToLowerAscii(Range(uri.hostText));
  if (host.empty()) {
    *message = "invalid URL " + Quote(original) + ": no host";
    return ERR_INVALID_URL;
  }
  if (uri.userInfo.first) {
    *message = "invalid URL " + Quote(original) + ": credentials in URLs are not supported";
    return ERR_INVALID_URL;
  }
  uint16_t port = Url::DefaultPort(scheme);
  std::string port_text = Range(uri.portText);
  if (!port_text.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || value == 0 ||
        value > 65535) {
      *message = "invalid URL " + Quote(original) + ": bad port \"" + port_text + "\"";
      return ERR_INVALID_URL;
    }
    port = static_cast<uint16_t>(value);
  }
  std::string path;
  for (const UriPathSegmentA* seg = uri.pathHead; seg; seg = seg->next)
    path += "/" + Range(seg->text);
  if (path.empty()) path = "/";
  if (uri.query.first) path += "?" + Range(uri.query);

  *out = Url::FromComponents(std::move(scheme), std::move(host), port, std::move(path));
  return OK;
}

}  // namespace
}  // namespace netstack
