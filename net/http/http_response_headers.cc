#include "net/http/http_response_headers.h"

#include <algorithm>
#include <iterator>

#include "net/base/net_error.h"
#include "net/http/http_stream_parser.h"
#include "net/http/http_util.h"

namespace netstack {

namespace {

// Headers whose single values may contain commas, so EnumerateHeader must not split them
// (Chrome's list of non-coalescing headers).
constexpr std::string_view kNonCoalescingHeaders[] = {"date",
                                                      "expires",
                                                      "last-modified",
                                                      "location",
                                                      "retry-after",
                                                      "set-cookie",
                                                      "www-authenticate",
                                                      "proxy-authenticate",
                                                      "strict-transport-security"};

bool IsNonCoalescing(std::string_view name) {
  return std::any_of(std::begin(kNonCoalescingHeaders), std::end(kNonCoalescingHeaders),
                     [name](std::string_view h) { return EqualsCaseInsensitiveAscii(h, name); });
}

}  // namespace

HttpResponseHeaders::HttpResponseHeaders(HttpVersion version, int response_code, std::string reason)
    : version_(version), response_code_(response_code), reason_(std::move(reason)) {}

std::shared_ptr<HttpResponseHeaders> HttpResponseHeaders::Parse(std::string_view block,
                                                                std::string* error) {
  // A HEAD-mode parser: the block ends at the empty line and no body is expected.
  HttpStreamParser parser(HttpStreamParser::Options{.head_request = true});
  std::string text(block);
  if (text.size() < 4 || text.compare(text.size() - 4, 4, "\r\n\r\n") != 0) {
    text.append(text.size() >= 2 && text.compare(text.size() - 2, 2, "\r\n") == 0 ? "\r\n"
                                                                                  : "\r\n\r\n");
  }
  int rv = parser.Consume(text.data(), text.size());
  if (rv == OK && !parser.headers_complete()) rv = parser.ConsumeEof();
  if (rv != OK || !parser.headers_complete()) {
    if (error) {
      // The parser's message leaves out the error's name: "malformed HTTP response: ...".
      *error = rv == OK ? "incomplete header block"
               : parser.error_message().empty()
                   ? ErrorToMessage(rv)
                   : ErrorToMessage(rv) + ": " + parser.error_message();
    }
    return nullptr;
  }
  return std::const_pointer_cast<HttpResponseHeaders>(parser.response_headers());
}

void HttpResponseHeaders::AddHeader(std::string name, std::string value) {
  headers_.push_back(Header{std::move(name), std::move(value)});
}

size_t HttpResponseHeaders::RemoveHeader(std::string_view name) {
  size_t before = headers_.size();
  std::erase_if(headers_,
                [name](const Header& h) { return EqualsCaseInsensitiveAscii(h.name, name); });
  return before - headers_.size();
}

std::string HttpResponseHeaders::GetStatusLine() const {
  std::string line = "HTTP/" + std::to_string(version_.major) + "." +
                     std::to_string(version_.minor) + " " + std::to_string(response_code_);
  if (!reason_.empty()) line += " " + reason_;
  return line;
}

bool HttpResponseHeaders::HasHeader(std::string_view name) const {
  return std::any_of(headers_.begin(), headers_.end(),
                     [name](const Header& h) { return EqualsCaseInsensitiveAscii(h.name, name); });
}

bool HttpResponseHeaders::GetNormalizedHeader(std::string_view name, std::string* value) const {
  bool found = false;
  std::string joined;
  for (const Header& h : headers_) {
    if (!EqualsCaseInsensitiveAscii(h.name, name)) continue;
    if (found) joined.append(", ");
    joined.append(h.value);
    found = true;
  }
  if (found) *value = std::move(joined);
  return found;
}

bool HttpResponseHeaders::EnumerateHeader(size_t* iter, std::string_view name,
                                          std::string* value) const {
  // *iter holds (line index << 32) | (byte offset within that line where the next item
  // starts): each call resumes the line's walk where the last one stopped, so enumerating every
  // item of a line scans it once (header values are far below 4 GiB: the parser's bound).
  size_t line = *iter >> 32;
  size_t offset = *iter & 0xFFFFFFFFu;
  const bool split = !IsNonCoalescing(name);
  for (; line < headers_.size(); ++line, offset = 0) {
    const Header& h = headers_[line];
    if (!EqualsCaseInsensitiveAscii(h.name, name)) continue;
    if (!split) {
      if (offset > 0) continue;
      *value = h.value;
      *iter = ((line + 1) << 32);
      return true;
    }
    HttpListIterator items(h.value, offset);
    std::string_view item;
    if (items.GetNext(&item)) {
      *value = std::string(item);
      *iter = (line << 32) | items.offset();
      return true;
    }
  }
  *iter = headers_.size() << 32;
  return false;
}

bool HttpResponseHeaders::HasHeaderValue(std::string_view name, std::string_view value) const {
  size_t iter = 0;
  std::string v;
  while (EnumerateHeader(&iter, name, &v)) {
    if (EqualsCaseInsensitiveAscii(v, value)) return true;
  }
  return false;
}

bool HttpResponseHeaders::HasDifferingValues(std::string_view name, std::string* first,
                                             std::string* other) const {
  const Header* seen = nullptr;
  for (const Header& h : headers_) {
    if (!EqualsCaseInsensitiveAscii(h.name, name)) continue;
    if (!seen) {
      seen = &h;
    } else if (h.value != seen->value) {
      if (first) *first = seen->value;
      if (other) *other = h.value;
      return true;
    }
  }
  return false;
}

bool HttpResponseHeaders::IsRedirectResponseCode(int code) {
  return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

bool HttpResponseHeaders::IsRedirect(std::string* location) const {
  if (!IsRedirectResponseCode(response_code_)) return false;
  size_t iter = 0;
  std::string value;
  if (!EnumerateHeader(&iter, "location", &value)) return false;
  value = std::string(TrimHttpWhitespace(value));
  if (value.empty()) return false;
  if (location) *location = std::move(value);
  return true;
}

int64_t HttpResponseHeaders::GetContentLength() const {
  std::string value;
  if (!GetNormalizedHeader("content-length", &value)) return -1;
  std::string_view v = TrimHttpWhitespace(value);
  if (v.empty() || v.size() > 18) return -1;  // 18 digits always fit in int64_t
  int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

nlohmann::json HttpResponseHeaders::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Header& h : headers_) {
    std::string key = SanitizeUtf8(ToLowerAscii(h.name));
    std::string value = SanitizeUtf8(h.value);
    auto it = out.find(key);
    if (it == out.end()) {
      out[key] = std::move(value);
    } else if (it->is_array()) {
      it->push_back(std::move(value));
    } else {
      *it = nlohmann::json::array({std::move(*it), std::move(value)});
    }
  }
  return out;
}

nlohmann::json HttpResponseHeaders::NetLogParams() const {
  nlohmann::json lines = nlohmann::json::array();
  lines.push_back(SanitizeUtf8(GetStatusLine()));
  for (const Header& h : headers_) lines.push_back(NetLogHeaderLine(h.name, h.value));
  return nlohmann::json{{"headers", std::move(lines)}};
}

void HttpResponseHeaders::WriteNetLogParams(netstack::NetLogParams& params) const {
  params.BeginArray("headers").AddElement(SanitizeUtf8(GetStatusLine()));
  for (const Header& h : headers_) params.AddElement(NetLogHeaderLine(h.name, h.value));
  params.EndArray();
}

std::string HttpResponseHeaders::ToHttpString() const {
  std::string out = GetStatusLine() + "\r\n";
  for (const Header& h : headers_) out.append(h.name).append(": ").append(h.value).append("\r\n");
  out.append("\r\n");
  return out;
}

int CheckSingleValuedHeaders(const HttpResponseHeaders& headers, bool check_content_length,
                             std::string* message) {
  struct Single {
    std::string_view name;
    int error;
  };
  constexpr Single kSingles[] = {
      {"content-length", ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH},
      {"content-disposition", ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_DISPOSITION},
      {"location", ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION},
  };
  for (const Single& single : kSingles) {
    if (single.name == "content-length" && !check_content_length) continue;
    std::string first, other;
    if (!headers.HasDifferingValues(single.name, &first, &other)) continue;
    // Values can be long (the header bound): the message shows the start of each.
    auto shown = [](const std::string& v) {
      constexpr size_t kShown = 64;
      return "\"" + (v.size() > kShown ? v.substr(0, kShown) + "..." : v) + "\"";
    };
    *message = shown(first) + " and " + shown(other);
    return single.error;
  }
  return OK;
}

}  // namespace netstack
