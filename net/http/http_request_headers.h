// The headers of an outgoing request: an ordered list of (name, value) pairs where names are
// unique and compared case-insensitively (like Chrome's HttpRequestHeaders). The order set is
// the order sent. Bounded: at most kMaxHeaders headers and kMaxTotalBytes serialized bytes;
// setters that would break a bound, or that are given an invalid name or value, refuse.
#ifndef NET_HTTP_HTTP_REQUEST_HEADERS_H_
#define NET_HTTP_HTTP_REQUEST_HEADERS_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netstack {

class HttpRequestHeaders {
 public:
  struct Header {
    std::string name;  // as first set (its case is kept on the wire)
    std::string value;
  };

  static constexpr size_t kMaxHeaders = 128;
  // Sum over headers of "Name: value\r\n"; servers commonly refuse far less (8-64 KiB).
  static constexpr size_t kMaxTotalBytes = 64 * 1024;

  static constexpr char kHost[] = "Host";
  static constexpr char kConnection[] = "Connection";
  static constexpr char kContentLength[] = "Content-Length";
  static constexpr char kAcceptEncoding[] = "Accept-Encoding";
  static constexpr char kUserAgent[] = "User-Agent";

  HttpRequestHeaders() = default;

  // Sets `name` to `value`. An existing header of that name (any case) keeps its position and
  // gets the new value. Returns false, changing nothing, if `name` is not a token, `value`
  // contains CR, LF or NUL, or a bound would be exceeded. Leading/trailing whitespace of
  // `value` is dropped.
  bool SetHeader(std::string_view name, std::string_view value);

  // Like SetHeader, but leaves an existing header alone (returns true then).
  bool SetHeaderIfMissing(std::string_view name, std::string_view value);

  // Parses one "Name: value" line (as given to `fetch -H`) and sets it. "Name:" with nothing
  // after the colon sets an empty value. Returns false for a line without a colon or anything
  // SetHeader refuses.
  bool AddHeaderFromString(std::string_view line);

  // Removes `name` if present; returns whether it was.
  bool RemoveHeader(std::string_view name);

  bool HasHeader(std::string_view name) const;
  // The value of `name`, or nullopt.
  std::optional<std::string> GetHeader(std::string_view name) const;

  void Clear() { headers_.clear(); }
  bool IsEmpty() const { return headers_.empty(); }
  size_t size() const { return headers_.size(); }
  const std::vector<Header>& headers() const { return headers_; }

  // "Name: value\r\n" for each header, then the empty line "\r\n".
  std::string ToString() const;

 private:
  std::vector<Header>::iterator Find(std::string_view name);
  std::vector<Header>::const_iterator Find(std::string_view name) const;
  size_t SerializedBytes() const;

  std::vector<Header> headers_;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_REQUEST_HEADERS_H_
