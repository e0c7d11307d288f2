#include "net/base/net_log_params.h"

#include <charconv>

#include "net/base/net_log.h"

namespace netstack {
namespace {

// Bytes nlohmann writes as they are inside a string: printable ASCII but the quote and the
// backslash. Anything else (control bytes, UTF-8, invalid bytes) goes through nlohmann.
bool IsPlain(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void NetLogParams::Clear() {
  text_.assign(1, '{');
  depth_ = 0;
  last_key_pos_[0] = std::string::npos;
  last_key_len_[0] = 0;
  needs_sort_ = false;
  any_key_ = false;
  finished_ = false;
}

void NetLogParams::AppendJson(const nlohmann::json& value, std::string* out) {
  out->append(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void NetLogParams::Key(std::string_view key) {
  if (depth_ == 0) any_key_ = true;
  if (text_.back() != '{') text_.push_back(',');
  if (!IsPlain(key)) {
    needs_sort_ = true;  // the escaped text does not compare as the key does
    AppendString(key);
    text_.push_back(':');
    return;
  }
  if (depth_ <= kMaxDepth) {
    // nlohmann's objects are std::maps: keys come out in byte order, each once.
    const size_t pos = last_key_pos_[depth_];
    if (pos != std::string::npos &&
        std::string_view(text_).substr(pos, last_key_len_[depth_]) >= key) {
      needs_sort_ = true;
    }
    last_key_pos_[depth_] = text_.size() + 1;
    last_key_len_[depth_] = key.size();
  }
  text_.push_back('"');
  text_.append(key);
  text_.append("\":", 2);
}

void NetLogParams::AppendSigned(int64_t value) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof(digits), value);
  text_.append(digits, static_cast<size_t>(result.ptr - digits));
}

void NetLogParams::AppendUnsigned(uint64_t value) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof(digits), value);
  text_.append(digits, static_cast<size_t>(result.ptr - digits));
}

void NetLogParams::AppendString(std::string_view value) {
  if (IsPlain(value)) {
    text_.push_back('"');
    text_.append(value);
    text_.push_back('"');
    return;
  }
  AppendJson(nlohmann::json(std::string(value)), &text_);
}

NetLogParams& NetLogParams::Add(std::string_view key, bool value) {
  Key(key);
  text_.append(value ? "true" : "false");
  return *this;
}

NetLogParams& NetLogParams::Add(std::string_view key, double value) {
  Key(key);
  AppendJson(nlohmann::json(value), &text_);
  return *this;
}

NetLogParams& NetLogParams::Add(std::string_view key, std::string_view value) {
  Key(key);
  AppendString(value);
  return *this;
}

NetLogParams& NetLogParams::AddNull(std::string_view key) {
  Key(key);
  text_.append("null");
  return *this;
}

NetLogParams& NetLogParams::AddJson(std::string_view key, const nlohmann::json& value) {
  Key(key);
  AppendJson(value, &text_);
  return *this;
}

NetLogParams& NetLogParams::AddSource(std::string_view key, const NetLogSource& source) {
  BeginObject(key);
  Add("id", source.id);
  Add("type", static_cast<int>(source.type));
  return EndObject();
}

NetLogParams& NetLogParams::BeginObject(std::string_view key) {
  Key(key);
  text_.push_back('{');
  ++depth_;
  if (depth_ <= kMaxDepth) {
    last_key_pos_[depth_] = std::string::npos;
    last_key_len_[depth_] = 0;
  } else {
    needs_sort_ = true;  // keys this deep are not checked
  }
  return *this;
}

NetLogParams& NetLogParams::EndObject() {
  if (depth_ == 0) return *this;  // nothing open: the top level closes in Finish
  text_.push_back('}');
  --depth_;
  return *this;
}

NetLogParams& NetLogParams::BeginArray(std::string_view key) {
  Key(key);
  text_.push_back('[');
  return *this;
}

NetLogParams& NetLogParams::AddElement(std::string_view value) {
  if (text_.back() != '[') text_.push_back(',');
  AppendString(value);
  return *this;
}

NetLogParams& NetLogParams::EndArray() {
  text_.push_back(']');
  return *this;
}

const std::string& NetLogParams::Finish() {
  if (finished_) return text_;
  finished_ = true;
  while (depth_ > 0) EndObject();
  text_.push_back('}');
  if (needs_sort_) {
    nlohmann::json sorted = nlohmann::json::parse(text_, nullptr, /*allow_exceptions=*/false);
    if (!sorted.is_discarded()) {
      text_.clear();
      AppendJson(sorted, &text_);
    }
  }
  return text_;
}

}  // namespace netstack
