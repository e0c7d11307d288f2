#include "tools/replay/trace/trace_json.h"

#include <cmath>
#include <cstdio>

namespace netstack {

namespace {

// The deepest nesting of `text`, stopping early once past kMaxJsonDepth. Strings are skipped
// so brackets inside them do not count.
int NestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > kMaxJsonDepth) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

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

}  // namespace

bool ParseJsonText(std::string_view text, nlohmann::json* out, JsonSyntaxError* error) {
  if (NestingDepth(text) > kMaxJsonDepth) {
    error->line = 1;
    error->column = 1;
    error->message = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return false;
  }
  try {
    *out = nlohmann::json::parse(text.begin(), text.end());
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
    return false;
  } catch (const std::exception& e) {
    error->line = 1;
    error->column = 1;
    error->message = e.what();
    return false;
  }
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
  for (char& c : *message) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
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
  if (number < static_cast<double>(min) || number > static_cast<double>(max)) {
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
