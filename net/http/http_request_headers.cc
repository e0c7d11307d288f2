#include "net/http/http_request_headers.h"

#include <algorithm>

#include "net/http/http_util.h"

namespace netstack {

namespace {

// "Name: value\r\n"
size_t LineBytes(size_t name_len, size_t value_len) { return name_len + 2 + value_len + 2; }

}  // namespace

std::vector<HttpRequestHeaders::Header>::iterator HttpRequestHeaders::Find(std::string_view name) {
  return std::find_if(headers_.begin(), headers_.end(),
                      [name](const Header& h) { return EqualsCaseInsensitiveAscii(h.name, name); });
}

std::vector<HttpRequestHeaders::Header>::const_iterator HttpRequestHeaders::Find(
    std::string_view name) const {
  return std::find_if(headers_.begin(), headers_.end(),
                      [name](const Header& h) { return EqualsCaseInsensitiveAscii(h.name, name); });
}

size_t HttpRequestHeaders::SerializedBytes() const {
  size_t total = 0;
  for (const Header& h : headers_) total += LineBytes(h.name.size(), h.value.size());
  return total;
}

bool HttpRequestHeaders::SetHeader(std::string_view name, std::string_view value) {
  value = TrimHttpWhitespace(value);
  if (!IsHttpToken(name) || !IsValidHeaderValue(value)) return false;
  size_t total = SerializedBytes();
  auto it = Find(name);
  if (it != headers_.end()) {
    size_t new_total = total - it->value.size() + value.size();
    if (new_total > kMaxTotalBytes) return false;
    it->value.assign(value);
    return true;
  }
  if (headers_.size() >= kMaxHeaders) return false;
  if (total + LineBytes(name.size(), value.size()) > kMaxTotalBytes) return false;
  headers_.push_back(Header{std::string(name), std::string(value)});
  return true;
}

bool HttpRequestHeaders::SetHeaderIfMissing(std::string_view name, std::string_view value) {
  if (HasHeader(name)) return true;
  return SetHeader(name, value);
}

bool HttpRequestHeaders::AddHeaderFromString(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  // No whitespace is allowed between the name and the colon (RFC 9112 section 5.1).
  return SetHeader(line.substr(0, colon), line.substr(colon + 1));
}

bool HttpRequestHeaders::RemoveHeader(std::string_view name) {
  auto it = Find(name);
  if (it == headers_.end()) return false;
  headers_.erase(it);
  return true;
}

bool HttpRequestHeaders::HasHeader(std::string_view name) const {
  return Find(name) != headers_.end();
}

std::optional<std::string> HttpRequestHeaders::GetHeader(std::string_view name) const {
  auto it = Find(name);
  if (it == headers_.end()) return std::nullopt;
  return it->value;
}

std::string HttpRequestHeaders::ToString() const {
  std::string out;
  out.reserve(SerializedBytes() + 2);
  for (const Header& h : headers_) {
    out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  out.append("\r\n");
  return out;
}

}  // namespace netstack
