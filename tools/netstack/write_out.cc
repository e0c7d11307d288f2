#include "tools/netstack/write_out.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "net/base/ip_address.h"

namespace netstack {

namespace {

enum Variable {
  kHttpCode,
  kResponseCode,
  kTimeNamelookup,
  kTimeConnect,
  kTimeAppconnect,
  kTimePretransfer,
  kTimeStarttransfer,
  kTimeTotal,
  kSizeDownload,
  kSizeHeader,
  kSizeRequest,
  kSizeUpload,
  kNumConnects,
  kNumRedirects,
  kUrl,
  kUrlEffective,
  kContentType,
  kRemoteIp,
  kRemotePort,
  kHttpVersion,
  kScheme,
  kMethod,
  kErrormsg,
  kCache,
  kSocketReused,
};

void AppendSeconds(double seconds, std::string* out) {
  // curl prints seconds with six decimals ("0.001234").
  char text[48];
  std::snprintf(text, sizeof(text), "%.6f", std::max(seconds, 0.0));
  out->append(text);
}

}  // namespace

const std::vector<std::string>& WriteOutFormat::KnownVariables() {
  // Indexed by Variable.
  static const std::vector<std::string> kNames = {"http_code",
                                                  "response_code",
                                                  "time_namelookup",
                                                  "time_connect",
                                                  "time_appconnect",
                                                  "time_pretransfer",
                                                  "time_starttransfer",
                                                  "time_total",
                                                  "size_download",
                                                  "size_header",
                                                  "size_request",
                                                  "size_upload",
                                                  "num_connects",
                                                  "num_redirects",
                                                  "url",
                                                  "url_effective",
                                                  "content_type",
                                                  "remote_ip",
                                                  "remote_port",
                                                  "http_version",
                                                  "scheme",
                                                  "method",
                                                  "errormsg",
                                                  "cache",
                                                  "socket_reused"};
  return kNames;
}

WriteOutValues WriteOutValuesFromRecord(const RequestRecord& r, const std::string& content_type,
                                        int64_t header_bytes, const std::string& http_version,
                                        int64_t request_bytes, int64_t upload_bytes) {
  WriteOutValues v;
  v.status = r.status;
  // The record's phases follow one another from the fetch's start: curl's times are their
  // running sums (time_appconnect stays 0 without TLS, as curl's does).
  const LoadTimingPhases& p = r.phases;
  const double ms = 1e-3;
  v.time_namelookup = (p.queued_ms + p.dns_ms) * ms;
  v.time_connect = v.time_namelookup + p.connect_ms * ms;
  v.time_appconnect = p.tls_ms > 0 ? v.time_connect + p.tls_ms * ms : 0;
  v.time_pretransfer = v.time_connect + p.tls_ms * ms;
  v.time_starttransfer = r.status != 0 ? v.time_pretransfer + (p.send_ms + p.ttfb_ms) * ms : 0;
  v.time_total = r.total_ms() * ms;
  // A response the cache served alone has no phases: everything happened within the total.
  v.time_namelookup = std::min(v.time_namelookup, v.time_total);
  v.time_connect = std::min(v.time_connect, v.time_total);
  v.time_appconnect = std::min(v.time_appconnect, v.time_total);
  v.time_pretransfer = std::min(v.time_pretransfer, v.time_total);
  v.time_starttransfer = std::min(v.time_starttransfer, v.time_total);
  v.size_download = std::max<int64_t>(r.transfer_bytes, 0);
  v.size_header = header_bytes;
  v.size_request = request_bytes;
  v.size_upload = upload_bytes;
  v.num_connects = r.connection.socket_source == SocketSource::kNew ? 1 : 0;
  v.num_redirects = static_cast<int>(r.redirects.size());
  v.url = r.url;
  v.url_effective = r.final_url;
  v.content_type = content_type;
  if (auto peer = IPEndPoint::Parse(r.connection.peer_address, 0)) {
    v.remote_ip = peer->address().ToString();
    v.remote_port = peer->port();
  }
  v.http_version = r.status == 0 ? "0" : http_version;
  const size_t colon = r.final_url.find(':');
  v.scheme = colon == std::string::npos ? std::string() : r.final_url.substr(0, colon);
  std::transform(v.scheme.begin(), v.scheme.end(), v.scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  v.method = r.method;
  v.errormsg = r.error_message;
  v.cache = r.cache_name();
  v.socket_reused = r.connection.reused();
  return v;
}

WriteOutFormat::WriteOutFormat(std::string_view format, std::vector<std::string>* warnings) {
  const std::vector<std::string>& names = KnownVariables();
  auto text = [this](std::string_view s) {
    if (pieces_.empty() || pieces_.back().variable >= 0) pieces_.push_back(Piece{});
    pieces_.back().text.append(s);
  };
  std::vector<std::string> warned;
  size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c == '\\' && i + 1 < format.size()) {
      const char e = format[i + 1];
      if (e == 'n' || e == 'r' || e == 't') {
        text(e == 'n' ? "\n" : e == 'r' ? "\r" : "\t");
      } else {
        text(format.substr(i, 2));  // curl keeps an unknown escape as typed
      }
      i += 2;
      continue;
    }
    if (c == '%' && i + 1 < format.size() && format[i + 1] == '%') {
      text("%");
      i += 2;
      continue;
    }
    if (c == '%' && i + 1 < format.size() && format[i + 1] == '{') {
      const size_t close = format.find('}', i + 2);
      if (close == std::string_view::npos) {
        text(format.substr(i));  // no closing brace: the rest is text
        break;
      }
      const std::string name(format.substr(i + 2, close - i - 2));
      auto known = std::find(names.begin(), names.end(), name);
      if (known != names.end()) {
        pieces_.push_back(Piece{static_cast<int>(known - names.begin()), std::string()});
      } else if (warnings && std::find(warned.begin(), warned.end(), name) == warned.end()) {
        warned.push_back(name);
        warnings->push_back("unknown --write-out variable: '" + name + "'");
      }
      i = close + 1;
      continue;
    }
    text(format.substr(i, 1));
    ++i;
  }
}

void WriteOutFormat::Render(const WriteOutValues& v, std::string* out) const {
  for (const Piece& piece : pieces_) {
    switch (static_cast<Variable>(piece.variable)) {
      case kHttpCode:
      case kResponseCode: {
        char code[16];
        std::snprintf(code, sizeof(code), "%03d", std::clamp(v.status, 0, 999));
        out->append(code);
        break;
      }
      case kTimeNamelookup:
        AppendSeconds(v.time_namelookup, out);
        break;
      case kTimeConnect:
        AppendSeconds(v.time_connect, out);
        break;
      case kTimeAppconnect:
        AppendSeconds(v.time_appconnect, out);
        break;
      case kTimePretransfer:
        AppendSeconds(v.time_pretransfer, out);
        break;
      case kTimeStarttransfer:
        AppendSeconds(v.time_starttransfer, out);
        break;
      case kTimeTotal:
        AppendSeconds(v.time_total, out);
        break;
      case kSizeDownload:
        out->append(std::to_string(v.size_download));
        break;
      case kSizeHeader:
        out->append(std::to_string(v.size_header));
        break;
      case kSizeRequest:
        out->append(std::to_string(v.size_request));
        break;
      case kSizeUpload:
        out->append(std::to_string(v.size_upload));
        break;
      case kNumConnects:
        out->append(std::to_string(v.num_connects));
        break;
      case kNumRedirects:
        out->append(std::to_string(v.num_redirects));
        break;
      case kUrl:
        out->append(v.url);
        break;
      case kUrlEffective:
        out->append(v.url_effective);
        break;
      case kContentType:
        out->append(v.content_type);
        break;
      case kRemoteIp:
        out->append(v.remote_ip);
        break;
      case kRemotePort:
        if (v.remote_port != 0) out->append(std::to_string(v.remote_port));
        break;
      case kHttpVersion:
        out->append(v.http_version);
        break;
      case kScheme:
        out->append(v.scheme);
        break;
      case kMethod:
        out->append(v.method);
        break;
      case kErrormsg:
        out->append(v.errormsg);
        break;
      case kCache:
        out->append(v.cache);
        break;
      case kSocketReused:
        out->append(v.socket_reused ? "1" : "0");
        break;
      default:
        out->append(piece.text);
        break;
    }
  }
}

}  // namespace netstack
