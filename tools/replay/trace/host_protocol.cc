#include "tools/replay/trace/host_protocol.h"

#include "net/base/string_util.h"
#include "net/base/url.h"
#include "tools/replay/trace/session_page.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {
namespace {

constexpr size_t kMaxHostLength = 253;  // a DNS name's limit

// Index into HostProtocolTally's counts, or -1.
int CountIndex(TraceProtocol protocol) {
  switch (protocol) {
    case TraceProtocol::kHttp11:
      return 0;
    case TraceProtocol::kHttp2:
      return 1;
    case TraceProtocol::kHttp3:
      return 2;
    case TraceProtocol::kUnknown:
      break;
  }
  return -1;
}

}  // namespace

const char* TraceProtocolName(TraceProtocol protocol) {
  switch (protocol) {
    case TraceProtocol::kHttp11:
      return "http/1.1";
    case TraceProtocol::kHttp2:
      return "h2";
    case TraceProtocol::kHttp3:
      return "h3";
    case TraceProtocol::kUnknown:
      break;
  }
  return "unknown";
}

TraceProtocol NormalizeRecordedProtocol(std::string_view recorded) {
  const std::string p = ToLowerAscii(TrimWhitespaceAscii(recorded));
  // QUIC first: Chrome wrote gQUIC as "http/2+quic/46".
  if (p.find("quic") != std::string::npos || p.starts_with("h3") || p.starts_with("http/3"))
    return TraceProtocol::kHttp3;
  if (p.starts_with("h2") || p.starts_with("http/2") || p.starts_with("spdy"))
    return TraceProtocol::kHttp2;
  if (p.starts_with("http/1") || p.starts_with("http/0")) return TraceProtocol::kHttp11;
  return TraceProtocol::kUnknown;
}

void HostProtocolTally::Add(const TraceEntry& entry) {
  const int index = CountIndex(entry.protocol);
  if (index < 0 || entry.recorded_from_cache) return;
  Url url;
  std::string message;
  if (Url::Parse(entry.url, &url, &message) != 0 || url.host().empty()) return;
  ++counts_[url.host()][static_cast<size_t>(index)];
}

void HostProtocolTally::AddPages(const std::vector<TracePage>& pages) {
  for (const TracePage& page : pages) {
    for (const TraceEntry& entry : page.entries) Add(entry);
  }
}

HostProtocols HostProtocolTally::Result() const {
  HostProtocols out;
  for (const auto& [host, n] : counts_) {
    if (n[1] + n[2] >= n[0]) {
      out.emplace(host, n[2] > n[1] ? TraceProtocol::kHttp3 : TraceProtocol::kHttp2);
    } else {
      out.emplace(host, TraceProtocol::kHttp11);
    }
  }
  return out;
}

HostProtocols RecordedHostProtocols(const std::vector<TracePage>& pages) {
  HostProtocolTally tally;
  tally.AddPages(pages);
  return tally.Result();
}

size_t ApplyHostProtocols(const HostProtocols& protocols, NetworkParams* params) {
  size_t set = 0;
  for (const auto& [host, protocol] : protocols) {
    if (protocol != TraceProtocol::kHttp2 && protocol != TraceProtocol::kHttp3) continue;
    auto it = params->hosts.find(host);
    if (it != params->hosts.end() && it->second.http2) continue;  // the user's choice
    params->trace_hosts[host].http2 = true;  // the trace's: yields to the user's (ForHost)
    ++set;
  }
  return set;
}

bool ParseSessionHostLine(const nlohmann::json& line, HostProtocols* hosts, std::string* error) {
  static const std::vector<std::string_view> kFields = {"type", "host", "protocol"};
  std::string unknown;
  if (!CheckSessionFields(line, kFields, &unknown)) {
    *error = UnknownFieldMessage(unknown, "a host line");
    return false;
  }
  JsonFields fields(line, "");
  std::string host, protocol_text = "http/1.1";
  fields.String("host", &host, /*required=*/true);
  fields.String("protocol", &protocol_text);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  // A bare host name, as a URL would carry it: no scheme, port, path or user.
  Url url;
  std::string message;
  if (host.empty() || host.size() > kMaxHostLength ||
      host.find_first_of("/:@?#[] \t") != std::string::npos ||
      Url::Parse("https://" + host + "/", &url, &message) != 0 ||
      url.host() != ToLowerAscii(host)) {
    *error = "host: '" + host.substr(0, 64) + "' is not a host name";
    return false;
  }
  TraceProtocol protocol = TraceProtocol::kUnknown;
  if (protocol_text == "http/1.1") {
    protocol = TraceProtocol::kHttp11;
  } else if (protocol_text == "h2") {
    protocol = TraceProtocol::kHttp2;
  } else if (protocol_text == "h3") {
    protocol = TraceProtocol::kHttp3;
  } else {
    *error = "protocol: '" + protocol_text.substr(0, 64) + "' is not http/1.1, h2 or h3";
    return false;
  }
  if (hosts->count(url.host())) {
    *error = "host '" + url.host() + "' is declared twice";
    return false;
  }
  if (hosts->size() >= kMaxSessionHosts) {
    *error = "more than " + std::to_string(kMaxSessionHosts) + " host lines";
    return false;
  }
  hosts->emplace(url.host(), protocol);
  return true;
}

}  // namespace netstack
