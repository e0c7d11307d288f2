#include "net/http/http_response_info.h"

#include <algorithm>
#include <cstdint>

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

bool IsValidUtf8(std::string_view s) { return SanitizeUtf8(s) == s; }

// A byte string as JSON: itself when valid UTF-8, else {"base64": ...}.
nlohmann::json BytesToJson(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  return nlohmann::json{{"base64", Base64Encode(s)}};
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
  nlohmann::json lines = nlohmann::json::array();
  if (headers) {
    lines.push_back(BytesToJson(headers->GetStatusLine()));
    for (const HttpResponseHeaders::Header& h : headers->headers())
      lines.push_back(BytesToJson(h.name + ": " + h.value));
  }
  nlohmann::json vary_json = nlohmann::json::object();
  for (const VaryValue& v : vary)
    vary_json[SanitizeUtf8(v.name)] = v.value ? BytesToJson(*v.value) : nlohmann::json(nullptr);
  // Key order is nlohmann's (sorted); readers never depend on it.
  nlohmann::json root{{"format", kFormatName},
                      {"version", kFormatVersion},
                      {"url", BytesToJson(url)},
                      {"request_time_us", ToUnixMicros(request_time)},
                      {"response_time_us", ToUnixMicros(response_time)},
                      {"headers", std::move(lines)},
                      {"vary", std::move(vary_json)}};
  return root.dump();
}

bool HttpResponseInfo::Parse(std::string_view blob, HttpResponseInfo* info, std::string* error) {
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
    VaryValue v{ToLowerAscii(it.key()), std::nullopt};
    if (!it.value().is_null()) {
      std::string value;
      if (!BytesFromJson(it.value(), &value))
        return Fail(error, "\"vary\" value of " + v.name + " is not a string or null");
      v.value = std::move(value);
    }
    out.vary.push_back(std::move(v));
  }
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
