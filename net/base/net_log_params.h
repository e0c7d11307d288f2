// NetLogParams: an event's parameters written straight to JSON text, the cheap way for a call
// site to describe an event (NetLogWithSource::AddEvent(type, [&](NetLogParams& p) {...})).
// Building an nlohmann::json object per event cost ~1,700 instructions for one key and several
// allocations, and the NetLog's capturing observers (the internals page's ring, the --netlog
// file) want text anyway; the writer appends into one reused buffer instead.
//
// The text is exactly what nlohmann's dump(-1) (error_handler replace) writes for the same
// object, so NetLog files and the internals page are byte-identical whichever way a call site
// builds its params: keys in sorted order (an std::map's order), compact separators, strings
// escaped as nlohmann escapes them, doubles in nlohmann's shortest form. A call site should add
// keys in sorted order; when it does not (or repeats a key, or nests deeper than kMaxDepth),
// Finish() re-sorts through a json parse, so the text is still right, only slower.
#ifndef NET_BASE_NET_LOG_PARAMS_H_
#define NET_BASE_NET_LOG_PARAMS_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

namespace netstack {

struct NetLogSource;

class NetLogParams {
 public:
  // Objects nested deeper than this are still written right, through Finish()'s re-sort.
  static constexpr int kMaxDepth = 8;

  NetLogParams() { Clear(); }

  // Starts over with an empty object `{`, keeping the buffer's capacity.
  void Clear();

  // Each Add appends "key":value to the innermost open object.
  template <
      typename Integer,
      std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  NetLogParams& Add(std::string_view key, Integer value) {
    Key(key);
    if constexpr (std::is_signed_v<Integer>) {
      AppendSigned(static_cast<int64_t>(value));
    } else {
      AppendUnsigned(static_cast<uint64_t>(value));
    }
    return *this;
  }
  NetLogParams& Add(std::string_view key, bool value);
  // Non-finite values are written as null, as nlohmann writes them.
  NetLogParams& Add(std::string_view key, double value);
  NetLogParams& Add(std::string_view key, std::string_view value);
  NetLogParams& Add(std::string_view key, const std::string& value) {
    return Add(key, std::string_view(value));
  }
  NetLogParams& Add(std::string_view key, const char* value) {
    return Add(key, std::string_view(value));
  }
  NetLogParams& AddNull(std::string_view key);
  // Any json value, dumped (for the rare params with arrays or nested structure).
  NetLogParams& AddJson(std::string_view key, const nlohmann::json& value);
  // {"id": N, "type": T}: a "source_dependency" as NetLogSource::ToJson writes it.
  NetLogParams& AddSource(std::string_view key, const NetLogSource& source);

  // Opens a nested object under `key`; EndObject closes it.
  NetLogParams& BeginObject(std::string_view key);
  NetLogParams& EndObject();
  // Opens an array of strings under `key` (AddElement each, then EndArray). Arrays hold
  // strings only and do not nest: for anything else use AddJson.
  NetLogParams& BeginArray(std::string_view key);
  NetLogParams& AddElement(std::string_view value);
  NetLogParams& EndArray();

  // Closes every open object and, if keys came out of order, rewrites the text in sorted order.
  // Returns the text: "{}" when nothing was added.
  const std::string& Finish();
  // True when no key was added at the top level.
  bool empty() const { return !any_key_; }

  // The text of `value` as the NetLog writes params (nlohmann's dump, invalid UTF-8 replaced),
  // appended to `out`.
  static void AppendJson(const nlohmann::json& value, std::string* out);

 private:
  void Key(std::string_view key);
  void AppendSigned(int64_t value);
  void AppendUnsigned(uint64_t value);
  void AppendString(std::string_view value);

  std::string text_;
  int depth_ = 0;  // open nested objects (the top-level one not counted)
  // Per open object: where its last key's text starts in text_ (npos: no key yet), its length.
  size_t last_key_pos_[kMaxDepth + 1];
  size_t last_key_len_[kMaxDepth + 1];
  bool needs_sort_ = false;
  bool any_key_ = false;
  bool finished_ = false;
};

}  // namespace netstack

#endif  // NET_BASE_NET_LOG_PARAMS_H_
