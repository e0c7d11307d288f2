#include "net/base/json_member_reader.h"

#include <cmath>
#include <limits>

namespace netstack {

const nlohmann::json* JsonMemberReader::Find(std::string_view path) {
  const nlohmann::json* at = &object_;
  while (true) {
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    path.remove_prefix(dot + 1);
  }
}

void JsonMemberReader::Fail(std::string_view path, std::string_view message) {
  if (!error_.empty()) return;
  error_.assign(path);
  error_ += ": ";
  error_ += message;
}

const nlohmann::json* JsonMemberReader::Member(std::string_view path, bool optional) {
  if (!ok()) return nullptr;
  const nlohmann::json* j = Find(path);
  if (!j && !optional) Fail(path, "missing");
  return j;
}

void JsonMemberReader::Double(std::string_view path, double* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (!j->is_number()) return Fail(path, "not a number");
  *out = j->get<double>();
}

void JsonMemberReader::DoubleOrNull(std::string_view path, double null_value, double* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (j->is_null()) {
    *out = null_value;
    return;
  }
  if (!j->is_number()) return Fail(path, "not a number or null");
  *out = j->get<double>();
}

template <typename Number>
void JsonMemberReader::Integer(std::string_view path, Number* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (j->is_number_unsigned()) {
    uint64_t v = j->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<Number>::max()))
      return Fail(path, "out of range");
    *out = static_cast<Number>(v);
  } else if (j->is_number_integer()) {
    int64_t v = j->get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<Number>::min()) ||
        (v > 0 &&
         static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<Number>::max())))
      return Fail(path, "out of range");
    *out = static_cast<Number>(v);
  } else {
    Fail(path, "not a whole number");
  }
}

void JsonMemberReader::Int(std::string_view path, int* out) { Integer(path, out); }
void JsonMemberReader::Int64(std::string_view path, int64_t* out) { Integer(path, out); }
void JsonMemberReader::Uint64(std::string_view path, uint64_t* out) { Integer(path, out); }
void JsonMemberReader::Uint32(std::string_view path, uint32_t* out) { Integer(path, out); }

void JsonMemberReader::Bool(std::string_view path, bool* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (!j->is_boolean()) return Fail(path, "not true or false");
  *out = j->get<bool>();
}

void JsonMemberReader::String(std::string_view path, std::string* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (!j->is_string()) return Fail(path, "not a string");
  *out = j->get_ref<const std::string&>();
}

void JsonMemberReader::StringOrNull(std::string_view path, std::string* out) {
  const nlohmann::json* j = Member(path);
  if (!j) return;
  if (j->is_null()) {
    out->clear();
    return;
  }
  if (!j->is_string()) return Fail(path, "not a string or null");
  *out = j->get_ref<const std::string&>();
}

}  // namespace netstack
