#include "tools/netstack/fetch_curl_flags.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "net/base/url.h"
#include "net/http/http_cache_range.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

constexpr size_t kMaxHeaderLine = 64 * 1024;

bool ValidToken(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || std::strchr("!#$%&'*+-.^_`|~", c);
  });
}

// A value of -A, -e or -u goes into a header line: no line breaks.
bool CheckFieldValue(const std::string& flag, const std::string& value, std::string* message) {
  if (value.find_first_of(std::string("\r\n\0", 3)) == std::string::npos &&
      value.size() <= kMaxHeaderLine)
    return true;
  *message = "bad " + flag + " \"" + TerminalSafe(value.substr(0, 200)) +
             "\": a line break or over 64 KiB (it goes into a header line)";
  return false;
}

}  // namespace

bool NormalizeMethod(const std::string& text, std::string* method, std::string* message) {
  if (!ValidToken(text) || text.size() > kMaxMethodLength) {
    *message = "bad -X \"" + TerminalSafe(text) + "\": a method is a token of at most " +
               std::to_string(kMaxMethodLength) + " letters, digits or !#$%&'*+-.^_`|~";
    return false;
  }
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "CONNECT") {
    *message = "bad -X \"" + TerminalSafe(text) +
               "\": CONNECT asks a proxy for a tunnel; netstack speaks to origins";
    return false;
  }
  // The Fetch standard's "normalize a method": these six in any case are the standard ones;
  // every other method is case-sensitive and sent as typed (RFC 9110 section 9.1).
  for (const char* known : {"DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"}) {
    if (upper == known) {
      *method = upper;
      return true;
    }
  }
  *method = text;
  return true;
}

bool ParseHeaderLine(const std::string& line, std::pair<std::string, std::string>* out,
                     std::string* message) {
  const std::string shown = TerminalSafe(line.size() > 200 ? line.substr(0, 200) + "..." : line);
  size_t colon = line.find(':');
  // curl's "Name;": the field with an empty value ("Name:" alone parses as empty too, and
  // ValidateFetchOptions then takes it as curl does: do not send Name).
  if (colon == std::string::npos && line.size() > 1 && line.back() == ';' &&
      ValidToken(line.substr(0, line.size() - 1))) {
    *out = {line.substr(0, line.size() - 1), std::string()};
    return true;
  }
  if (colon == std::string::npos || line.size() > kMaxHeaderLine) {
    *message =
        "bad header \"" + shown + "\": expected 'Name: value' (or 'Name;' for an empty value)";
    return false;
  }
  std::string name = line.substr(0, colon);
  std::string value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  if (!ValidToken(name) || value.find_first_of(std::string("\r\n\0", 3)) != std::string::npos) {
    *message = "bad header \"" + shown + "\": invalid name or a line break in the value";
    return false;
  }
  *out = {name, value};
  return true;
}

void AddOrJoinHeader(std::vector<std::pair<std::string, std::string>>* headers,
                     const std::string& name, const std::string& value) {
  for (auto& [have, joined] : *headers) {
    if (!EqualsCaseInsensitiveAscii(have, name)) continue;
    // One field line per name: the request headers keep names unique, as Chrome's do, and a
    // list field's lines mean what their values joined by commas mean (RFC 9110 section 5.3).
    // Cookie is the exception (RFC 6265 section 5.4: one line, pairs joined by "; ").
    if (joined.empty()) {
      joined = value;
    } else if (!value.empty()) {
      joined += EqualsCaseInsensitiveAscii(name, "Cookie") ? "; " : ", ";
      joined += value;
    }
    return;
  }
  headers->emplace_back(name, value);
}

std::string BasicAuthorization(const std::string& user_pass) {
  // EVP_EncodeBlock writes 4 bytes per 3 (rounded up) and a NUL.
  std::string encoded(4 * ((user_pass.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                reinterpret_cast<const unsigned char*>(user_pass.data()),
                                static_cast<int>(user_pass.size()));
  encoded.resize(static_cast<size_t>(n));
  return "Basic " + encoded;
}

bool HasRequestHeader(const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::string& name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return EqualsCaseInsensitiveAscii(h.first, name); });
}

bool ParseRangeFlag(const std::string& text, std::string* header, std::string* message) {
  ByteRangeSpec spec;
  std::string why;
  if (!ParseByteRangeSpec(text, &spec, &why)) {
    // ParseByteRangeSpec says 'bad range "TEXT": why'; name the flag.
    *message = "bad -r" + why.substr(std::strlen("bad range"));
    return false;
  }
  *header = "bytes=" + spec.ToString();
  return true;
}

bool ValidateCurlOptions(FetchOptions* o, std::string* message) {
  if (!CheckFieldValue("-A", o->user_agent, message) ||
      !CheckFieldValue("-e", o->referer, message) || !CheckFieldValue("-u", o->user, message))
    return false;
  if (!o->user_agent.empty() && !HasRequestHeader(o->headers, "User-Agent"))
    o->headers.emplace_back("User-Agent", o->user_agent);
  if (!o->referer.empty()) {
    Url referer;
    std::string why;
    if (Url::Parse(o->referer, &referer, &why) != OK) {
      *message = "bad -e \"" + TerminalSafe(o->referer) + "\": " + why;
      return false;
    }
    if (!HasRequestHeader(o->headers, "Referer")) o->headers.emplace_back("Referer", o->referer);
  }
  if (!o->user.empty()) {
    // curl asks for the password on the terminal; a fetch that may run in a script does not.
    if (o->user.find(':') == std::string::npos) {
      *message = "bad -u \"" + TerminalSafe(o->user) +
                 "\": expected user:password (netstack does not prompt for the password)";
      return false;
    }
    if (!HasRequestHeader(o->headers, "Authorization"))
      o->headers.emplace_back("Authorization", BasicAuthorization(o->user));
  }
  if (!o->range.empty()) {
    std::string range;
    if (!ParseRangeFlag(o->range, &range, message)) return false;
    if (!HasRequestHeader(o->headers, "Range")) o->headers.emplace_back("Range", range);
  }
  o->write_out = o->write_out_text;
  if (!o->write_out_text.empty() && o->write_out_text.front() == '@') {
    const std::string path = o->write_out_text.substr(1);
    std::string text;
    if (!ReadRequestBodyFile(path == "-" ? "/dev/stdin" : path, kMaxWriteOutBytes, &text,
                             message)) {
      // The reader names -d; say -w and the bound that applies here.
      const std::string prefix = "cannot read -d file";
      if (message->rfind(prefix, 0) == 0) message->replace(0, prefix.size(), "cannot read -w file");
      const size_t over = message->rfind("\": over ");
      if (over != std::string::npos)
        message->replace(over + 3, std::string::npos, "over 64 KiB (the bound on a -w format)");
      return false;
    }
    o->write_out = std::move(text);
  } else if (static_cast<int64_t>(o->write_out.size()) > kMaxWriteOutBytes) {
    *message = "bad -w: over 64 KiB (the bound on a -w format)";
    return false;
  }
  const bool write_out = !o->write_out_text.empty();
  if (o->json && (write_out || o->include)) {
    *message = std::string("--json conflicts with ") + (write_out ? "-w" : "-i") +
               " (stdout carries the JSON records)";
    return false;
  }
  if (o->page && (write_out || o->include || o->verbose)) {
    *message = std::string("--page conflicts with ") +
               (write_out    ? "-w"
                : o->include ? "-i"
                             : "-v") +
               " (they describe plain fetches)";
    return false;
  }
  return true;
}

// -Y and -y as curl combines them: either one turns the rate check on.
}  // namespace netstack
