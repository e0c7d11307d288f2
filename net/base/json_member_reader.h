// Reads typed members out of a parsed JSON object without throwing: the readers of the records
// netstack writes (a replay's request, page and totals lines, read back by `netstack merge`).
// The first missing or mistyped member is kept as a one-line error naming it by its dotted path
// ("timing.dns_ms: not a number"); later reads are skipped, so a caller reads every member and
// checks ok() once.
#ifndef NET_BASE_JSON_MEMBER_READER_H_
#define NET_BASE_JSON_MEMBER_READER_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace netstack {

class JsonMemberReader {
 public:
  // Reads members of `object` (which need not be an object: every read then fails).
  explicit JsonMemberReader(const nlohmann::json& object) : object_(object) {}

  // Each reads the member at `path` (keys joined by '.') into `*out`, or records an error and
  // leaves `*out` as it was. Numbers must be whole and in range for the integer reads.
  void Double(std::string_view path, double* out);
  // null reads as `null_value` (the writers' "unknown", usually -1).
  void DoubleOrNull(std::string_view path, double null_value, double* out);
  void Int(std::string_view path, int* out);
  void Int64(std::string_view path, int64_t* out);
  void Uint64(std::string_view path, uint64_t* out);
  void Uint32(std::string_view path, uint32_t* out);
  void Bool(std::string_view path, bool* out);
  void String(std::string_view path, std::string* out);
  // null reads as "".
  void StringOrNull(std::string_view path, std::string* out);
  // The member itself (any JSON value); null when absent only if `optional`.
  const nlohmann::json* Member(std::string_view path, bool optional = false);

  // Records `message` about `path` as the error, unless one is already kept.
  void Fail(std::string_view path, std::string_view message);

  bool ok() const { return error_.empty(); }
  // "PATH: what is wrong" (empty while ok()).
  const std::string& error() const { return error_; }

 private:
  const nlohmann::json* Find(std::string_view path);
  template <typename Number>
  void Integer(std::string_view path, Number* out);

  const nlohmann::json& object_;
  std::string error_;
};

}  // namespace netstack

#endif  // NET_BASE_JSON_MEMBER_READER_H_
