#include "net/http/http_response_info.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "net/http/http_date.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

constexpr char kFormatName[] = "netstack-http-response-info";
constexpr char kBase64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kBase64Chars[(v >> shift) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out.push_back(kBase64Chars[(v >> 18) & 63]);
    out.push_back(kBase64Chars[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kBase64Chars[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

bool Base64Decode(std::string_view in, std::string* out) {
  if (in.size() % 4 != 0) return false;
  out->clear();
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      char c = in[i + j];
      int d;
      if (c == '=' && i + 4 == in.size() && j >= 2) {
        ++pad;
        d = 0;
      } else {
        if (pad) return false;  // data after padding
        const char* p = std::find(kBase64Chars, kBase64Chars + 64, c);
        if (p == kBase64Chars + 64) return false;
        d = static_cast<int>(p - kBase64Chars);
      }
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out->push_back(static_cast<char>((v >> 16) & 0xFF));
    if (pad < 2) out->push_back(static_cast<char>((v >> 8) & 0xFF));
    if (pad < 1) out->push_back(static_cast<char>(v & 0xFF));
  }
  return true;
}

bool IsValidUtf8(std::string_view s) {
  // Header lines are nearly always ASCII: check that without building a copy.
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return true;
  return SanitizeUtf8(s) == s;
}

// `s` (valid UTF-8) as a JSON string, escaped as nlohmann::json's dump() escapes it (no
// ensure_ascii): the short escapes for \b \t \n \f \r \" and \\, \u00xx for other control
// characters, every other byte as is.
void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '\b':
        out->append("\\b");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out->append(escaped, sizeof(escaped));
      }
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

// A byte string as JSON: itself when valid UTF-8, else {"base64":"..."}.
void AppendBytes(std::string_view s, std::string* out) {
  if (IsValidUtf8(s)) {
    AppendJsonString(s, out);
    return;
  }
  out->append("{\"base64\":\"").append(Base64Encode(s)).append("\"}");
}

bool BytesFromJson(const nlohmann::json& j, std::string* out) {
  if (j.is_string()) {
    *out = j.get<std::string>();
    return true;
  }
  if (j.is_object() && j.size() == 1 && j.contains("base64") && j["base64"].is_string())
    return Base64Decode(j["base64"].get<std::string>(), out);
  return false;
}

bool Fail(std::string* error, std::string message) {
  if (error) *error = "stream 0: " + message;
  return false;
}

// The latest time a stored response may carry: 9999-12-31T23:59:59.999999Z. Bounding the stored
// times (and the Epoch below) keeps the age arithmetic of RFC 9111 4.2.3 on them (differences
// and sums of three) far from int64 overflow, whatever a damaged blob says.
constexpr int64_t kMaxTimeMicros = int64_t{253'402'300'799'999'999};

bool GetTime(const nlohmann::json& root, const char* name, Time* out, std::string* error) {
  auto it = root.find(name);
  if (it == root.end() || !it->is_number_integer())
    return Fail(error, std::string("\"") + name + "\" missing or not an integer");
  if (it->is_number_unsigned() ? it->get<uint64_t>() > uint64_t{kMaxTimeMicros}
                               : (it->get<int64_t>() < 0 || it->get<int64_t>() > kMaxTimeMicros))
    return Fail(error, std::string("\"") + name + "\" out of range");
  *out = TimeFromUnixMicros(it->get<int64_t>());
  return true;
}

// Reads the blob Serialize writes, as it writes it, without building a JSON tree: exact key
// order, no whitespace, strings of printable ASCII without escapes, integers without sign.
// Anything else (another writer's equivalent JSON, an escape, a non-ASCII byte, a damaged
// blob, any field that Parse would refuse) returns false and Parse takes the general path, so
// what this accepts is exactly a subset of what the general path accepts, with the same result.
class CanonicalReader {
 public:
  explicit CanonicalReader(std::string_view in) : in_(in) {}

  bool Literal(std::string_view text) {
    if (in_.substr(pos_, text.size()) != text) return false;
    pos_ += text.size();
    return true;
  }
  bool Peek(char c) const { return pos_ < in_.size() && in_[pos_] == c; }
  bool AtEnd() const { return pos_ == in_.size(); }

  // A string of printable ASCII, no escapes.
  bool String(std::string_view* out) {
    if (!Literal("\"")) return false;
    const size_t start = pos_;
    for (; pos_ < in_.size(); ++pos_) {
      const unsigned char c = static_cast<unsigned char>(in_[pos_]);
      if (c == '"') {
        *out = in_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c < 0x20 || c > 0x7E || c == '\\') return false;
    }
    return false;
  }

  // A string or {"base64":"..."} (BytesFromJson).
  bool Bytes(std::string* out) {
    std::string_view text;
    if (Peek('"')) {
      if (!String(&text)) return false;
      out->assign(text);
      return true;
    }
    return Literal("{\"base64\":") && String(&text) && Literal("}") && Base64Decode(text, out);
  }

  // A non-negative integer of at most 18 digits (no int64 overflow), no leading zero.
  bool Integer(int64_t* out) {
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9' && pos_ - start < 18)
      v = v * 10 + (in_[pos_++] - '0');
    const size_t digits = pos_ - start;
    if (digits == 0 || (digits > 1 && in_[start] == '0')) return false;
    if (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') return false;
    *out = v;
    return true;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

bool ParseCanonical(std::string_view blob, HttpResponseInfo* info) {
  CanonicalReader r(blob);
  HttpResponseInfo out;
  if (!r.Literal("{\"format\":\"") || !r.Literal(kFormatName) || !r.Literal("\",\"headers\":["))
    return false;
  std::string block;
  std::string line;
  for (bool first = true; !r.Peek(']'); first = false) {
    if (!first && !r.Literal(",")) return false;
    if (!r.Bytes(&line) || line.find_first_of("\r\n") != std::string::npos) return false;
    block.append(line).append("\r\n");
  }
  if (block.empty()) return false;
  block.append("\r\n");
  int64_t request_us = 0;
  int64_t response_us = 0;
  if (!r.Literal("],\"request_time_us\":") || !r.Integer(&request_us) ||
      !r.Literal(",\"response_time_us\":") || !r.Integer(&response_us) ||
      request_us > kMaxTimeMicros || response_us > kMaxTimeMicros || !r.Literal(",\"url\":") ||
      !r.Bytes(&out.url) || !r.Literal(",\"vary\":{")) {
    return false;
  }
  out.request_time = TimeFromUnixMicros(request_us);
  out.response_time = TimeFromUnixMicros(response_us);
  std::string_view previous_key;
  for (bool first = true; !r.Peek('}'); first = false) {
    if (!first && !r.Literal(",")) return false;
    std::string_view key;
    // Keys strictly increasing: the general path's (sorted, duplicates merged) order.
    if (!r.String(&key) || (!first && !(previous_key < key)) || !r.Literal(":")) return false;
    // Names as Serialize writes them: lowercase HTTP tokens (anything else takes the general
    // path, which refuses it with a reason).
    if (!IsHttpToken(key) || ToLowerAscii(key) != key) return false;
    previous_key = key;
    HttpResponseInfo::VaryValue v{ToLowerAscii(key), std::nullopt};
    if (!r.Literal("null")) {
      std::string value;
      if (!r.Bytes(&value)) return false;
      v.value = std::move(value);
    }
    if (out.vary.size() >= HttpResponseInfo::kMaxVaryHeaders) return false;
    out.vary.push_back(std::move(v));
  }
  int64_t version = 0;
  if (!r.Literal("},\"version\":") || !r.Integer(&version) ||
      version != HttpResponseInfo::kFormatVersion || !r.Literal("}") || !r.AtEnd()) {
    return false;
  }
  std::string parse_error;
  out.headers = HttpResponseHeaders::Parse(block, &parse_error);
  if (!out.headers) return false;
  *info = std::move(out);
  return true;
}

}  // namespace

bool HttpResponseInfo::SetVaryFromRequest(const HttpRequestHeaders& request) {
  std::vector<VaryValue> out;
  if (headers) {
    size_t iter = 0;
    std::string name;
    while (headers->EnumerateHeader(&iter, "vary", &name)) {
      if (name == "*" || !IsHttpToken(name)) return false;
      std::string lower = ToLowerAscii(name);
      if (std::any_of(out.begin(), out.end(), [&](const VaryValue& v) { return v.name == lower; }))
        continue;
      if (out.size() >= kMaxVaryHeaders) return false;
      out.push_back(VaryValue{lower, request.GetHeader(lower)});
    }
  }
  vary = std::move(out);
  return true;
}

std::string HttpResponseInfo::Serialize() const {
  // Written directly rather than through nlohmann::json (which built a tree of allocations for
  // every stored response), producing the very bytes nlohmann's dump() did: no whitespace,
  // keys in std::map order, its string escapes. tests/http/http_response_info_test.cc checks
  // the two writers agree.
  std::string out;
  size_t estimate = 160 + url.size();
  if (headers) {
    estimate += headers->GetStatusLine().size();
    for (const HttpResponseHeaders::Header& h : headers->headers())
      estimate += h.name.size() + h.value.size() + 8;
  }
  out.reserve(estimate);
  out.append("{\"format\":\"").append(kFormatName).append("\",\"headers\":[");
  if (headers) {
    AppendBytes(headers->GetStatusLine(), &out);
    std::string line;
    for (const HttpResponseHeaders::Header& h : headers->headers()) {
      line.assign(h.name).append(": ").append(h.value);
      out.push_back(',');
      AppendBytes(line, &out);
    }
  }
  out.append("],\"request_time_us\":").append(std::to_string(ToUnixMicros(request_time)));
  out.append(",\"response_time_us\":").append(std::to_string(ToUnixMicros(response_time)));
  out.append(",\"url\":");
  AppendBytes(url, &out);
  out.append(",\"vary\":{");
  // As a JSON object: sorted by key, the last of equal keys wins.
  std::map<std::string, const VaryValue*> sorted;
  for (const VaryValue& v : vary) sorted.insert_or_assign(SanitizeUtf8(v.name), &v);
  bool first = true;
  for (const auto& [name, v] : sorted) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(name, &out);
    out.push_back(':');
    if (v->value) {
      AppendBytes(*v->value, &out);
    } else {
      out.append("null");
    }
  }
  out.append("},\"version\":").append(std::to_string(kFormatVersion)).append("}");
  return out;
}

bool HttpResponseInfo::Parse(std::string_view blob, HttpResponseInfo* info, std::string* error) {
  // Nearly every blob is one Serialize wrote: read it without a JSON tree.
  if (ParseCanonical(blob, info)) return true;
  nlohmann::json root = nlohmann::json::parse(blob, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Fail(error, "not JSON");
  if (!root.is_object()) return Fail(error, "not a JSON object");
  auto format = root.find("format");
  if (format == root.end() || !format->is_string() || *format != kFormatName)
    return Fail(error, std::string("\"format\" is not \"") + kFormatName + "\"");
  auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer())
    return Fail(error, "\"version\" missing or not an integer");
  if (*version != kFormatVersion) {
    return Fail(error, "version " + std::to_string(version->get<int64_t>()) +
                           " not supported (expected " + std::to_string(kFormatVersion) + ")");
  }
  HttpResponseInfo out;
  auto url = root.find("url");
  if (url == root.end() || !BytesFromJson(*url, &out.url))
    return Fail(error, "\"url\" missing or not a string");
  if (!GetTime(root, "request_time_us", &out.request_time, error) ||
      !GetTime(root, "response_time_us", &out.response_time, error)) {
    return false;
  }

  auto lines = root.find("headers");
  if (lines == root.end() || !lines->is_array() || lines->empty())
    return Fail(error, "\"headers\" missing or not a non-empty array");
  std::string block;
  for (const nlohmann::json& line : *lines) {
    std::string text;
    if (!BytesFromJson(line, &text)) return Fail(error, "a header line is not a string");
    // A line with CR or LF would smuggle another header into the block.
    if (text.find_first_of("\r\n") != std::string::npos)
      return Fail(error, "a header line contains CR or LF");
    block.append(text).append("\r\n");
  }
  block.append("\r\n");
  std::string parse_error;
  std::shared_ptr<HttpResponseHeaders> headers = HttpResponseHeaders::Parse(block, &parse_error);
  if (!headers) return Fail(error, "headers do not parse: " + SanitizeUtf8(parse_error));
  out.headers = std::move(headers);

  auto vary = root.find("vary");
  if (vary == root.end() || !vary->is_object())
    return Fail(error, "\"vary\" missing or not an object");
  if (vary->size() > kMaxVaryHeaders) return Fail(error, "\"vary\" has too many headers");
  for (auto it = vary->begin(); it != vary->end(); ++it) {
    // A name is an HTTP token, once: what SetVaryFromRequest can store, so the entry serializes
    // back to itself.
    if (!IsHttpToken(it.key()))
      return Fail(error, "\"vary\" name '" + SanitizeUtf8(it.key().substr(0, 64)) +
                             "' is not an HTTP token");
    VaryValue v{ToLowerAscii(it.key()), std::nullopt};
    if (std::any_of(out.vary.begin(), out.vary.end(),
                    [&](const VaryValue& seen) { return seen.name == v.name; }))
      return Fail(error, "\"vary\" names " + v.name + " twice");
    if (!it.value().is_null()) {
      std::string value;
      if (!BytesFromJson(it.value(), &value))
        return Fail(error, "\"vary\" value of " + v.name + " is not a string or null");
      v.value = std::move(value);
    }
    out.vary.push_back(std::move(v));
  }
  // By name, as Serialize writes them and the fast path reads them (the JSON object's order is
  // by the names as written, which lowercasing can change).
  std::sort(out.vary.begin(), out.vary.end(),
            [](const VaryValue& a, const VaryValue& b) { return a.name < b.name; });
  *info = std::move(out);
  return true;
}

nlohmann::json HttpResponseInfo::ToJson() const {
  nlohmann::json lines = nlohmann::json::array();
  if (headers) {
    lines.push_back(SanitizeUtf8(headers->GetStatusLine()));
    for (const HttpResponseHeaders::Header& h : headers->headers())
      lines.push_back(SanitizeUtf8(h.name + ": " + h.value));
  }
  nlohmann::json vary_json = nlohmann::json::object();
  for (const VaryValue& v : vary)
    vary_json[SanitizeUtf8(v.name)] = v.value ? nlohmann::json(SanitizeUtf8(*v.value)) : nullptr;
  return {{"url", SanitizeUtf8(url)},
          {"request_time", FormatHttpDate(request_time)},
          {"response_time", FormatHttpDate(response_time)},
          {"request_time_us", ToUnixMicros(request_time)},
          {"response_time_us", ToUnixMicros(response_time)},
          {"headers", std::move(lines)},
          {"vary", std::move(vary_json)}};
}

}  // namespace netstack
