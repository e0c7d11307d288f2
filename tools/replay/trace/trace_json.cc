#include "tools/replay/trace/trace_json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "net/base/utf8.h"

namespace netstack {

namespace {

// Calls f(i) for each byte text[i] outside a JSON string (the quotes themselves excluded),
// until f returns false. Brackets or tokens inside strings are not JSON structure.
template <typename F>
void ForEachByteOutsideStrings(std::string_view text, F f) {
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (!f(i)) {
      return;
    }
  }
}

// The deepest nesting of `text`, stopping early once past kMaxJsonDepth.
int NestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  ForEachByteOutsideStrings(text, [&](size_t i) {
    if (text[i] == '[' || text[i] == '{') {
      if (++depth > deepest) deepest = depth;
    } else if (text[i] == ']' || text[i] == '}') {
      --depth;
    }
    return deepest <= kMaxJsonDepth;
  });
  return deepest;
}

// The first place `token` stands in `text` outside a JSON string (0 when nowhere).
size_t FindOutsideStrings(std::string_view text, std::string_view token) {
  size_t found = 0;
  ForEachByteOutsideStrings(text, [&](size_t i) {
    if (text.compare(i, token.size(), token) != 0) return true;
    found = i;
    return false;
  });
  return found;
}

// Cuts `message` to about `max` bytes, keeping its start and its end (where a message names
// the place and the problem) around " ... ". Cuts fall between characters.
void BoundMessage(std::string* message, size_t max) {
  if (message->size() <= max) return;
  auto back_to_char = [&](size_t at) {
    while (at > 0 && (static_cast<unsigned char>((*message)[at]) & 0xc0) == 0x80) --at;
    return at;
  };
  size_t head = back_to_char(max / 2);
  size_t tail = back_to_char(message->size() - max / 2 + 8);
  *message = message->substr(0, head) + " ... " + message->substr(tail);
}

}  // namespace

void LineAndColumn(std::string_view text, size_t offset, int* line, int* column) {
  if (offset > text.size()) offset = text.size();
  *line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++*line;
      line_start = i + 1;
    }
  }
  *column = static_cast<int>(offset - line_start) + 1;
}

bool ParseJsonText(std::string_view text, nlohmann::json* out, JsonSyntaxError* error) {
  return ParseJsonText(text, nullptr, out, error);
}

bool ParseJsonText(std::string_view text, const nlohmann::json::parser_callback_t& callback,
                   nlohmann::json* out, JsonSyntaxError* error) {
  if (NestingDepth(text) > kMaxJsonDepth) {
    error->line = 1;
    error->column = 1;
    error->message = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return false;
  }
  // nlohmann's lexer takes a NUL byte for the end of the input and ignores what follows: JSON
  // text never holds one (a string escapes it as \u0000), so it is an error where it is.
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    LineAndColumn(text, nul, &error->line, &error->column);
    error->message = "a NUL byte (0x00) in the text";
    return false;
  }
  try {
    *out = nlohmann::json::parse(text.begin(), text.end(), callback);
    return true;
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts the bytes read, the offending one included.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    LineAndColumn(text, offset, &error->line, &error->column);
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: <message>".
    std::string what = e.what();
    size_t at = what.find("column ");
    size_t colon = what.find(": ", at == std::string::npos ? 0 : at);
    error->message = colon == std::string::npos ? what : what.substr(colon + 2);
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1e400": out_of_range.406, "number overflow parsing
    // '1e400'") carries no position: it is where that token first stands outside a string.
    std::string what = e.what();
    size_t close = what.find("] ");
    error->message = close == std::string::npos ? what : what.substr(close + 2);
    size_t quote = error->message.find('\'');
    size_t end = error->message.rfind('\'');
    size_t offset = 0;
    if (quote != std::string::npos && end > quote + 1) {
      offset = FindOutsideStrings(
          text, std::string_view(error->message).substr(quote + 1, end - quote - 1));
    }
    LineAndColumn(text, offset, &error->line, &error->column);
  } catch (const std::exception& e) {
    error->line = 1;
    error->column = 1;
    error->message = e.what();
  }
  BoundMessage(&error->message, kMaxSyntaxMessageBytes);
  return false;
}

const char* JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "binary data";
  }
}

std::string FormatNumber(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.15g", value);
  return buffer;
}

void MakeOneLine(std::string* message) {
  std::string out;
  out.reserve(message->size());
  const std::string& in = *message;
  size_t i = 0;
  while (i < in.size()) {
    size_t length = Utf8SequenceLength(in, i);
    unsigned char c = static_cast<unsigned char>(in[i]);
    bool control = length == 0 || (length == 1 && (c < 0x20 || c == 0x7f)) ||
                   (length == 2 && c == 0xc2 && static_cast<unsigned char>(in[i + 1]) < 0xa0);
    if (control) {
      out += '?';
      i += length == 0 ? 1 : length;
    } else {
      out.append(in, i, length);
      i += length;
    }
  }
  BoundMessage(&out, kMaxMessageBytes);
  *message = std::move(out);
}

JsonFields::JsonFields(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    error_ = (path_.empty() ? std::string("value") : path_) + ": expected an object, got " +
             JsonTypeName(object_);
  }
}

JsonFields::JsonFields(const nlohmann::json& object, const std::string& array_path, size_t index)
    : object_(object), array_path_(&array_path), index_(index) {
  if (!object_.is_object()) {
    error_ = path() + ": expected an object, got " + JsonTypeName(object_);
  }
}

const std::string& JsonFields::path() const {
  if (array_path_) {
    path_ = *array_path_ + "[" + std::to_string(index_) + "]";
    array_path_ = nullptr;
  }
  return path_;
}

std::string JsonFields::PathOf(std::string_view key) const {
  const std::string& base = path();
  if (base.empty()) return std::string(key);
  if (key.empty()) return base;
  std::string path = base;
  path += '.';
  path += key;
  return path;
}

void JsonFields::Fail(std::string_view key, const std::string& problem) {
  if (!error_.empty()) return;
  std::string where = PathOf(key);
  error_ = where.empty() ? problem : where + ": " + problem;
}

bool JsonFields::TypeError(const char* key, const char* expected, const nlohmann::json& got) {
  Fail(key, std::string("expected ") + expected + ", got " + JsonTypeName(got));
  return false;
}

const nlohmann::json* JsonFields::Get(const char* key, bool required) {
  if (!ok()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) {
    if (required) Fail(key, "missing");
    return nullptr;
  }
  return &*it;
}

const nlohmann::json* JsonFields::Object(const char* key, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (value && !value->is_object()) {
    TypeError(key, "an object", *value);
    return nullptr;
  }
  return value;
}

const nlohmann::json* JsonFields::Array(const char* key, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (value && !value->is_array()) {
    TypeError(key, "an array", *value);
    return nullptr;
  }
  return value;
}

bool JsonFields::String(const char* key, std::string* out, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (!value) return false;
  if (!value->is_string()) return TypeError(key, "a string", *value);
  *out = value->get_ref<const std::string&>();
  return true;
}

bool JsonFields::Number(const char* key, double* out, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (!value) return false;
  if (!value->is_number()) return TypeError(key, "a number", *value);
  double number = value->get<double>();
  if (!std::isfinite(number)) {
    Fail(key, "not a finite number");
    return false;
  }
  *out = number;
  return true;
}

bool JsonFields::NumberIn(const char* key, double min, double max, double* out, bool required) {
  double number = 0;
  if (!Number(key, &number, required)) return false;
  if (number < min || number > max) {
    Fail(key, FormatNumber(number) + " is out of range (" + FormatNumber(min) + " to " +
                  FormatNumber(max) + ")");
    return false;
  }
  *out = number;
  return true;
}

bool JsonFields::Integer(const char* key, int64_t min, int64_t max, int64_t* out, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (!value) return false;
  if (!value->is_number()) return TypeError(key, "an integer", *value);
  double number = value->get<double>();
  if (!std::isfinite(number) || std::floor(number) != number) {
    Fail(key, FormatNumber(number) + " is not an integer");
    return false;
  }
  // 2^63 and above compare equal to INT64_MAX as doubles: the exact value decides those.
  bool above =
      number > static_cast<double>(max) ||
      (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(max)) ||
      (!value->is_number_integer() && !value->is_number_unsigned() && number >= 0x1p63);
  if (number < static_cast<double>(min) || above) {
    Fail(key, FormatNumber(number) + " is out of range (" + std::to_string(min) + " to " +
                  std::to_string(max) + ")");
    return false;
  }
  *out = value->is_number_integer() || value->is_number_unsigned() ? value->get<int64_t>()
                                                                   : static_cast<int64_t>(number);
  return true;
}

bool JsonFields::Bool(const char* key, bool* out, bool required) {
  const nlohmann::json* value = Get(key, required);
  if (!value) return false;
  if (!value->is_boolean()) return TypeError(key, "true or false", *value);
  *out = value->get<bool>();
  return true;
}

}  // namespace netstack
