#include "tools/bench/cache_workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace netstack {
namespace {

// splitmix64: a small, fully specified generator, so a seed gives the same population with any
// standard library (std::lognormal_distribution's output is implementation-defined).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1).
  double Unit() { return (static_cast<double>(Next() >> 11) + 0.5) / 9007199254740992.0; }
  // Standard normal (Box-Muller).
  double Normal() { return std::sqrt(-2.0 * std::log(Unit())) * std::cos(2 * M_PI * Unit()); }

 private:
  uint64_t state_;
};

const char* const kExtensions[] = {"js", "css", "png", "jpg", "woff2", "json", "html", "svg"};
const char* const kTypes[] = {"text/javascript", "text/css",         "image/png", "image/jpeg",
                              "font/woff2",      "application/json", "text/html", "image/svg+xml"};

std::string Hex(uint64_t v, int digits) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(digits, '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[i] = kDigits[v & 15];
  return s;
}

// Serialized response headers as the HTTP layer would store them: status line and a dozen
// fields, 300-700 bytes.
std::string MakeHeaders(Rng& rng, int type, int64_t body_size) {
  std::string h = "HTTP/1.1 200 OK\r\n";
  h += "date: Sat, 21 Nov 2026 12:00:00 GMT\r\n";
  h += "server: nginx/1.22.1\r\n";
  h += std::string("content-type: ") + kTypes[type] + "\r\n";
  h += "content-length: " + std::to_string(body_size) + "\r\n";
  h += "last-modified: Fri, 20 Nov 2026 08:00:00 GMT\r\n";
  h += "etag: \"" + Hex(rng.Next(), 16) + "-" + Hex(body_size, 8) + "\"\r\n";
  h += "cache-control: public, max-age=" + std::to_string(60 + rng.Next() % 31'536'000) + "\r\n";
  h += "accept-ranges: bytes\r\n";
  h += "vary: Accept-Encoding\r\n";
  h += "x-request-id: " + Hex(rng.Next(), 16) + Hex(rng.Next(), 16) + "\r\n";
  int pad = static_cast<int>(rng.Next() % 300);
  h += "x-cache-info: " + std::string(pad, 'a' + static_cast<char>(rng.Next() % 26)) + "\r\n";
  return h;
}

}  // namespace

CacheWorkload::CacheWorkload(const Options& options) : options_(options) {
  Rng rng(options.seed);
  pool_.resize(kPoolStride + options.max_body_bytes);
  for (size_t i = 0; i + 8 <= pool_.size(); i += 8) {
    uint64_t v = rng.Next();
    std::copy_n(reinterpret_cast<const char*>(&v), 8, &pool_[i]);
  }
  entries_.reserve(options.entries);
  const double mu = std::log(options.median_body_bytes);
  for (int i = 0; i < options.entries; ++i) {
    Entry e;
    int type = static_cast<int>(rng.Next() % 8);
    double size = std::exp(mu + options.sigma * rng.Normal());
    e.body_size = std::clamp<int64_t>(static_cast<int64_t>(size), options.min_body_bytes,
                                      options.max_body_bytes);
    e.body_offset = static_cast<int64_t>(rng.Next() % kPoolStride);
    // The index makes the key unique; the rest gives it a URL's shape and length (60-110).
    e.key = "https://cdn" + std::to_string(rng.Next() % 40) + ".example.com/assets/" +
            Hex(rng.Next(), 2 + rng.Next() % 14) + "/" + std::to_string(i) + "-" +
            Hex(rng.Next(), 12) + "." + kExtensions[type] +
            "?v=" + std::to_string(rng.Next() % 100);
    e.headers = MakeHeaders(rng, type, e.body_size);
    total_body_bytes_ += e.body_size;
    total_headers_bytes_ += static_cast<int64_t>(e.headers.size());
    entries_.push_back(std::move(e));
  }
}

std::string_view CacheWorkload::body(size_t i) const {
  return PoolBytes(entries_[i].body_offset, entries_[i].body_size);
}

std::string_view CacheWorkload::PoolBytes(int64_t offset, int64_t len) const {
  offset %= kPoolStride;
  len = std::min<int64_t>(len, options_.max_body_bytes);
  return std::string_view(pool_).substr(offset, len);
}

int64_t CacheWorkload::CountBodiesAbove(int64_t bytes) const {
  return std::count_if(entries_.begin(), entries_.end(),
                       [bytes](const Entry& e) { return e.body_size > bytes; });
}

std::vector<size_t> CacheWorkload::RandomIndices(int n, uint64_t seed) const {
  Rng rng(seed);
  std::vector<size_t> out(n);
  for (auto& i : out) i = rng.Next() % entries_.size();
  return out;
}

std::string CacheWorkload::MissKey(int i) {
  return "https://cdn" + std::to_string(i % 40) + ".example.com/assets/absent/" +
         std::to_string(i) + "-" + Hex(static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL, 12) +
         ".js?v=0";
}

std::string CacheWorkload::StreamKey(int i) {
  return "https://media.example.com/video/1080p/segment-" + std::to_string(i) + ".m4s";
}

std::string CacheWorkload::StreamHeaders(int64_t body_size) {
  Rng rng(static_cast<uint64_t>(body_size));
  return MakeHeaders(rng, 3, body_size);
}

}  // namespace netstack
