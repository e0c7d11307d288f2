// JSON helpers shared by the trace readers (har_reader.h, session_reader.h): parsing text with
// the error's line and column, and reading typed members with the member's path in every
// message ("log.entries[3].request.url: expected a string, got number").
#ifndef TOOLS_REPLAY_TRACE_TRACE_JSON_H_
#define TOOLS_REPLAY_TRACE_TRACE_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace netstack {

// Deeper nesting is rejected before parsing: no trace needs it, and it bounds the parser's and
// the destructor's work on hostile input.
inline constexpr int kMaxJsonDepth = 256;
// What a syntax error's message may say (it quotes the token last read, which may be a long
// string), and what any message MakeOneLine returns may be: longer ones are cut in the middle.
inline constexpr size_t kMaxSyntaxMessageBytes = 200;
inline constexpr size_t kMaxMessageBytes = 1024;

struct JsonSyntaxError {
  int line = 0;         // 1-based, in `text`
  int column = 0;       // 1-based byte column
  std::string message;  // "syntax error while parsing value - invalid literal; ..."
};

// The 1-based line and column of byte `offset` of `text` (clamped to its end).
void LineAndColumn(std::string_view text, size_t offset, int* line, int* column);

// Parses one JSON document. Never throws: every nlohmann exception (a syntax error, a number too
// large for a double) and a NUL byte anywhere in `text` are errors. On failure returns false
// and fills `error`, its message at most kMaxSyntaxMessageBytes.
bool ParseJsonText(std::string_view text, nlohmann::json* out, JsonSyntaxError* error);

// The same with nlohmann's parser callback, which sees each value as it is parsed and may drop
// it (returning false): a reader can handle the elements of a large array one at a time
// without holding them all. `callback` must not throw.
bool ParseJsonText(std::string_view text, const nlohmann::json::parser_callback_t& callback,
                   nlohmann::json* out, JsonSyntaxError* error);

// "number", "string", ... as a message would say it.
const char* JsonTypeName(const nlohmann::json& value);

// Reads members of one JSON object, keeping the first error. Every reader returns normally
// after an error (doing nothing), so a caller reads all it needs and checks ok() once. A
// member that is absent or JSON null counts as absent (HAR writers use null that way).
class JsonFields {
 public:
  // `object` must outlive this; if it is not an object, the reader starts in error
  // ("<path>: expected an object, got array").
  JsonFields(const nlohmann::json& object, std::string path);
  // The element `index` of the array at `array_path` (which must outlive this): the path
  // "<array_path>[<index>]" is only built when a message needs it.
  JsonFields(const nlohmann::json& object, const std::string& array_path, size_t index);

  bool ok() const { return error_.empty(); }
  // "<path>.<key>: <problem>"; empty while ok.
  const std::string& error() const { return error_; }
  const std::string& path() const;
  // The path of a member: "log.entries[3]" + "url" -> "log.entries[3].url".
  std::string PathOf(std::string_view key) const;

  // The member, or null when absent / JSON null / after an error. With `required`, absence is
  // the error "<path>.<key>: missing".
  const nlohmann::json* Get(const char* key, bool required = false);
  const nlohmann::json* Object(const char* key, bool required = false);
  const nlohmann::json* Array(const char* key, bool required = false);

  // Typed readers: leave *out unchanged when the member is absent (and not required).
  // Return true when a value was stored.
  bool String(const char* key, std::string* out, bool required = false);
  bool Number(const char* key, double* out, bool required = false);
  // Numbers within [min, max]; Integer also requires an integral value (3.0 is accepted).
  bool NumberIn(const char* key, double min, double max, double* out, bool required = false);
  bool Integer(const char* key, int64_t min, int64_t max, int64_t* out, bool required = false);
  bool Bool(const char* key, bool* out, bool required = false);

  // Records "<path>.<key>: <problem>" (or "<path>: <problem>" with an empty key) unless an
  // error is already kept.
  void Fail(std::string_view key, const std::string& problem);

 private:
  bool TypeError(const char* key, const char* expected, const nlohmann::json& got);

  const nlohmann::json& object_;
  mutable std::string path_;
  mutable const std::string* array_path_ = nullptr;  // with index_: path_ not built yet
  size_t index_ = 0;
  std::string error_;
};

// "3", "2.5", "1e+20": a number as a message shows it.
std::string FormatNumber(double value);

// Makes `message` one printable line of at most about kMaxMessageBytes: control characters (a
// "\n" decoded from JSON text, a newline in a path; C1 controls such as U+009B) and bytes that
// are not valid UTF-8 (a raw 0x9b, the 8-bit CSI) become '?', and a longer message is cut in
// the middle (" ... "). Every reader error passes through it before it is returned.
void MakeOneLine(std::string* message);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_TRACE_JSON_H_
