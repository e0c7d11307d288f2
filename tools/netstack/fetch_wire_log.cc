#include "tools/netstack/fetch_wire_log.h"

#include <cstdlib>
#include <string_view>

#include "net/base/string_util.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

namespace {

std::string JsonText(const nlohmann::json& params, const char* key) {
  if (!params.is_object()) return std::string();
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The header lines of a HEADERS event ({"headers": ["Name: value", ...]}).
std::vector<std::string> HeaderLines(const nlohmann::json& params) {
  std::vector<std::string> lines;
  if (!params.is_object()) return lines;
  auto it = params.find("headers");
  if (it == params.end() || !it->is_array()) return lines;
  for (const nlohmann::json& line : *it)
    if (line.is_string()) lines.push_back(line.get<std::string>());
  return lines;
}

// The bytes "Name: value\r\n" took on the wire; a stripped value ("[N bytes were stripped]")
// counts its N bytes.
int64_t WireBytes(const std::string& line) {
  const size_t open = line.find(": [");
  constexpr std::string_view kStripped = " bytes were stripped]";
  if (open != std::string::npos && line.size() > kStripped.size() &&
      line.compare(line.size() - kStripped.size(), kStripped.size(), kStripped) == 0) {
    const int64_t n = std::strtoll(line.c_str() + open + 3, nullptr, 10);
    return static_cast<int64_t>(open + 2) + n + 2;
  }
  return static_cast<int64_t>(line.size()) + 2;
}

// An HTTP/2 head as the HTTP/1.1-style lines curl prints for it: "GET /path HTTP/2", then
// Host (from :authority) and the rest; pseudo-headers other than those are left out.
std::vector<std::string> Http2RequestLines(const std::vector<std::string>& headers) {
  std::string method, path, authority;
  std::vector<std::string> rest;
  for (const std::string& h : headers) {
    auto value = [&h](std::string_view prefix) { return h.substr(prefix.size()); };
    if (h.rfind(":method: ", 0) == 0) {
      method = value(":method: ");
    } else if (h.rfind(":path: ", 0) == 0) {
      path = value(":path: ");
    } else if (h.rfind(":authority: ", 0) == 0) {
      authority = value(":authority: ");
    } else if (h.empty() || h[0] != ':') {
      rest.push_back(h);
    }
  }
  std::vector<std::string> lines = {method + " " + path + " HTTP/2", "Host: " + authority};
  lines.insert(lines.end(), rest.begin(), rest.end());
  return lines;
}

void AppendPrefixed(char prefix, const std::vector<std::string>& lines, std::string* out) {
  for (const std::string& line : lines) {
    out->push_back(prefix);
    out->push_back(' ');
    out->append(TerminalSafe(line));
    out->push_back('\n');
  }
  out->push_back(prefix);
  out->push_back('\n');
}

template <typename Map>
void Bound(Map* map, size_t max) {
  // Source ids grow: the smallest is the oldest.
  while (map->size() > max) map->erase(map->begin());
}

}  // namespace

FetchWireLog::FetchWireLog(NetLog* net_log, bool verbose, FILE* out)
    : net_log_(net_log), verbose_(verbose), out_(out) {
  net_log_->AddObserver(this);
}

FetchWireLog::~FetchWireLog() { net_log_->RemoveObserver(this); }

FetchWireLog::Sent FetchWireLog::TakeSent(uint32_t source_id) {
  auto it = sent_.find(source_id);
  if (it == sent_.end()) return Sent();
  const Sent sent = it->second;
  sent_.erase(it);
  return sent;
}

int FetchWireLog::ParamsNeed(NetLogEventType type) const {
  switch (type) {
    case NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS:
    case NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS:
      return kNetLogParamsJson;
    case NetLogEventType::TCP_CONNECT_ATTEMPT:
    case NetLogEventType::TCP_CONNECT:
    case NetLogEventType::SSL_CONNECT:
    case NetLogEventType::SOCKET_POOL_REUSED_AN_EXISTING_SOCKET:
    case NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS:
    case NetLogEventType::URL_REQUEST_REDIRECTED:
      return verbose_ ? kNetLogParamsJson : kNetLogParamsNone;
    default:
      return kNetLogParamsNone;
  }
}

std::string FetchWireLog::VerboseLines(const NetLogEntry& e,
                                       std::map<uint32_t, std::string>* addresses) {
  std::string out;
  switch (e.type) {
    case NetLogEventType::TCP_CONNECT_ATTEMPT:
      if (e.phase == NetLogEventPhase::BEGIN) {
        const std::string address = JsonText(e.params, "address");
        (*addresses)[e.source.id] = address;
        Bound(addresses, kMaxTracked);
        out = "*   Trying " + address + "...\n";
      }
      break;
    case NetLogEventType::TCP_CONNECT:
      if (e.phase == NetLogEventPhase::END) {
        auto it = addresses->find(e.source.id);
        const std::string address = it == addresses->end() ? std::string() : it->second;
        if (it != addresses->end()) addresses->erase(it);
        if (e.params.is_object() && e.params.contains("net_error")) {
          out = "* connect to " + address + " failed\n";
        } else {
          out = "* Connected to " + address + "\n";
        }
      }
      break;
    case NetLogEventType::SSL_CONNECT:
      if (e.phase == NetLogEventPhase::BEGIN) {
        out = "* TLS handshake with " + TerminalSafe(JsonText(e.params, "host")) + "\n";
      } else if (e.params.is_object() && e.params.contains("version")) {
        out = "* SSL connection using " + JsonText(e.params, "version") + " / " +
              JsonText(e.params, "cipher_suite") + "\n";
        const std::string alpn = JsonText(e.params, "next_proto");
        if (!alpn.empty()) out += "* ALPN: server accepted " + TerminalSafe(alpn) + "\n";
        if (e.params.value("is_resumed", false)) out += "* SSL session resumed\n";
      } else {
        out = "* TLS handshake failed: " + TerminalSafe(JsonText(e.params, "error_detail")) + "\n";
      }
      break;
    case NetLogEventType::SOCKET_POOL_REUSED_AN_EXISTING_SOCKET:
      out = "* Re-using existing connection\n";
      break;
    case NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS: {
      std::vector<std::string> lines = HeaderLines(e.params);
      std::string line = JsonText(e.params, "line");
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      lines.insert(lines.begin(), line);
      AppendPrefixed('>', lines, &out);
      break;
    }
    case NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS:
      AppendPrefixed('>', Http2RequestLines(HeaderLines(e.params)), &out);
      break;
    case NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS:
      AppendPrefixed('<', HeaderLines(e.params), &out);
      break;
    case NetLogEventType::URL_REQUEST_REDIRECTED:
      out = "* Issue another request to this URL: '" +
            TerminalSafe(JsonText(e.params, "location")) + "'\n";
      break;
    default:
      break;
  }
  return out;
}

void FetchWireLog::OnAddEntry(const NetLogEntry& e) {
  if (e.type == NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS ||
      e.type == NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS) {
    std::vector<std::string> lines = HeaderLines(e.params);
    if (e.type == NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS) {
      lines = Http2RequestLines(lines);
    } else {
      lines.insert(lines.begin(), JsonText(e.params, "line"));
      lines.front().resize(lines.front().size() >= 2 ? lines.front().size() - 2 : 0);
    }
    Sent& sent = sent_[e.source.id];
    sent.head_bytes += 2;  // the empty line
    sent.last_body_bytes = 0;
    for (const std::string& line : lines) {
      sent.head_bytes += WireBytes(line);
      constexpr std::string_view kLength = "content-length: ";
      if (line.size() > kLength.size() &&
          EqualsCaseInsensitiveAscii(std::string_view(line).substr(0, kLength.size()), kLength))
        sent.last_body_bytes = std::strtoll(line.c_str() + kLength.size(), nullptr, 10);
    }
    Bound(&sent_, kMaxTracked);
  }
  if (!verbose_) return;
  const std::string lines = VerboseLines(e, &addresses_);
  if (!lines.empty()) std::fputs(lines.c_str(), out_);
}

}  // namespace netstack
