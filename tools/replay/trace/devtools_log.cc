#include "tools/replay/trace/devtools_log.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "tools/replay/trace/devtools_events.h"
#include "tools/replay/trace/trace_file.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

constexpr uint64_t kMaxDevtoolsBytes = 512ull << 20;
constexpr std::string_view kBom = "\xEF\xBB\xBF";
// Wrappings followed to reach a message: Chrome's performance log as Selenium returns it is
// {"message": "<JSON text of {\"message\": {...}, \"webview\": ...}>", ...}.
constexpr int kMaxWrapping = 4;

std::string_view StripBom(std::string_view text) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

// The message (an object with "method") inside one element of the log, following the
// performance log's wrappings: {"message": {...}} and JSON text of either. Null with `problem`
// empty for an element to ignore (a command's reply: {"id", "result"}), or with `problem` set.
// `scratch` holds what embedded JSON text parsed to.
const nlohmann::json* Unwrap(const nlohmann::json& element, nlohmann::json* scratch,
                             std::string* problem) {
  const nlohmann::json* at = &element;
  for (int depth = 0; depth <= kMaxWrapping; ++depth) {
    if (at->is_string()) {
      nlohmann::json parsed;
      JsonSyntaxError syntax;
      if (!ParseJsonText(at->get_ref<const std::string&>(), &parsed, &syntax)) {
        *problem = "JSON syntax error in the message's text at " + std::to_string(syntax.line) +
                   ":" + std::to_string(syntax.column) + ": " + syntax.message;
        return nullptr;
      }
      *scratch = std::move(parsed);
      at = scratch;
      continue;
    }
    if (!at->is_object()) break;
    if (at->contains("method")) return at;
    auto message = at->find("message");
    if (message != at->end() && (message->is_object() || message->is_string())) {
      at = &*message;
      continue;
    }
    if (at->contains("id")) return nullptr;  // a command's reply
    *problem = "method: missing";
    return nullptr;
  }
  *problem = std::string("expected a DevTools message (an object with \"method\"), got ") +
             (at->is_string() ? "text wrapped more than 4 times" : JsonTypeName(*at));
  return nullptr;
}

// The parser callback: hands each element of the top-level array to `events` as soon as it is
// parsed and drops it, keeping the first error.
class MessageReader {
 public:
  MessageReader(DevtoolsEvents* events, size_t max_messages)
      : events_(events), max_messages_(max_messages) {}

  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 0 && event == Event::array_start) root_is_array_ = true;
    bool element =
        depth == 1 && root_is_array_ &&
        (event == Event::object_end || event == Event::array_end || event == Event::value);
    if (!element) return true;
    Take(parsed);
    return false;
  }

  bool root_is_array() const { return root_is_array_; }
  size_t count() const { return count_; }
  const std::string& error() const { return error_; }

 private:
  void Take(const nlohmann::json& element) {
    size_t index = count_++;
    if (!error_.empty()) return;
    if (index >= max_messages_) {
      error_ = "more than the limit of " + std::to_string(max_messages_) + " messages";
      return;
    }
    nlohmann::json scratch;
    std::string problem;
    const nlohmann::json* message = Unwrap(element, &scratch, &problem);
    if (!message) {
      if (!problem.empty()) error_ = "message " + std::to_string(index) + ": " + problem;
      return;
    }
    const nlohmann::json& method = (*message)["method"];
    if (!method.is_string()) {
      error_ = "message " + std::to_string(index) + ": method: expected a string, got " +
               JsonTypeName(method);
      return;
    }
    static const nlohmann::json kNull;
    auto params = message->find("params");
    events_->Handle(index, method.get_ref<const std::string&>(),
                    params == message->end() ? kNull : *params, &error_);
  }

  DevtoolsEvents* events_;
  size_t max_messages_;
  bool root_is_array_ = false;
  size_t count_ = 0;
  std::string error_;
};

}  // namespace

namespace {

// Hands every message of `text` (without a byte order mark) to `events`. False with `error`
// naming the file.
bool ReadMessages(std::string_view text, const std::string& name, size_t max_messages,
                  DevtoolsEvents* events, std::string* error) {
  MessageReader reader(events, max_messages);
  nlohmann::json rest;
  JsonSyntaxError syntax;
  if (!ParseJsonText(text, std::ref(reader), &rest, &syntax)) {
    *error = syntax.line == 0
                 ? name + ": JSON syntax error: " + syntax.message
                 : name + ":" + std::to_string(syntax.line) + ":" + std::to_string(syntax.column) +
                       ": JSON syntax error: " + syntax.message;
    return false;
  }
  if (!reader.root_is_array()) {
    *error = name + ": expected a JSON array of DevTools messages, got " + JsonTypeName(rest);
    return false;
  }
  if (!reader.error().empty()) {
    *error = name + ": " + reader.error();
    return false;
  }
  return true;
}

// Clears `out` and makes `error` one line after a failure.
bool Failed(HarFile* out, std::string* error) {
  *out = HarFile();
  MakeOneLine(error);
  return false;
}

}  // namespace

bool ParseDevtoolsLog(std::string_view text, const std::string& name, HarFile* out,
                      std::string* error, const DevtoolsLogLimits& limits) {
  *out = HarFile();
  text = StripBom(text);
  if (text.size() > kMaxDevtoolsBytes) {
    *error = name + ": larger than the limit of " + FormatByteLimit(kMaxDevtoolsBytes);
    return Failed(out, error);
  }
  DevtoolsEvents events(name, limits);
  if (!ReadMessages(text, name, limits.messages, &events, error) || !events.Finish(out, error)) {
    return Failed(out, error);
  }
  return true;
}

bool ReadDevtoolsLogFile(const std::string& path, HarFile* out, std::string* error) {
  *out = HarFile();
  std::string text, problem;
  if (!ReadTraceFile(path, kMaxDevtoolsBytes, &text, &problem)) {
    *error = path + ": " + problem;
    return Failed(out, error);
  }
  const DevtoolsLogLimits limits;
  DevtoolsEvents events(path, limits);
  bool read = ReadMessages(StripBom(text), path, limits.messages, &events, error);
  std::string().swap(text);  // the pages are built without the text
  if (!read || !events.Finish(out, error)) return Failed(out, error);
  return true;
}

bool LooksLikeDevtoolsLog(std::string_view text_start) {
  std::string_view text = StripBom(text_start);
  size_t pos = text.find_first_not_of(" \t\r\n");
  return pos != std::string_view::npos && text[pos] == '[';
}

}  // namespace netstack
