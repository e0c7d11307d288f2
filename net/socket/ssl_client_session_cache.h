// SslClientSessionCache: a stack's TLS client sessions, Chrome's SSLClientSessionCache, shared
// by both worlds. Keyed by server ("host:port", SslSessionCacheKey), bounded (least recently
// used first out), each session offered only within its validity and, when single-use (TLS 1.3
// tickets, RFC 8446 C.4), only once. As Chrome's, a server keeps up to two single-use sessions
// (an OpenSSL server sends two tickets after a full handshake, so two connections opened at
// once can both resume) and one reusable session (TLS 1.2). The session itself is opaque: the live
// world stores an OpenSSL session reference (SslClientContext), the simulator a small value
// (SimSslSocket). Time is wall time from a Clock passed in (SystemClock live, SchedulerClock in the
// simulator, ManualClock in tests), because session lifetimes are wall-clock seconds.
//
// `Session` must be copyable (a reusable session handed out stays cached: for the live world
// the copy is another reference, SSL_SESSION_up_ref) and movable (a single-use session is moved
// out). Single-threaded, like the Scheduler.
#ifndef NET_SOCKET_SSL_CLIENT_SESSION_CACHE_H_
#define NET_SOCKET_SSL_CLIENT_SESSION_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "net/base/clock.h"

namespace netstack {

// The cache key of a server: "host:port" ("[::1]:443" for IPv6 literals), as Chrome keys its
// cache by HostPortPair.
std::string SslSessionCacheKey(const std::string& host, uint16_t port);

// Chrome's cache holds about a thousand sessions; both worlds keep 1000 unless told otherwise.
inline constexpr size_t kDefaultSslSessionCacheSize = 1000;

// When and how often a stored session may be offered.
struct SslSessionValidity {
  Time issued;   // not offered before this (a clock set back) ...
  Time expires;  // ... nor from this time on
  // Taken by the lookup that offers it (TLS 1.3 tickets); else kept for later connections (a
  // TLS 1.2 session resumes any number of times until it expires).
  bool single_use = false;
};

template <typename Session>
class SslClientSessionCache {
 public:
  // `clock` must outlive the cache. A `max_entries` of 0 is taken as 1.
  explicit SslClientSessionCache(const Clock& clock,
                                 size_t max_entries = kDefaultSslSessionCacheSize)
      : clock_(clock), max_entries_(max_entries == 0 ? 1 : max_entries) {}
  SslClientSessionCache(const SslClientSessionCache&) = delete;
  SslClientSessionCache& operator=(const SslClientSessionCache&) = delete;

  // The session to offer to `key`'s server, or nullopt (none, or none still valid: invalid
  // ones are dropped). A single-use session leaves the cache (the older of two is offered next);
  // a reusable one stays (a copy is returned). The server becomes the most recently used.
  std::optional<Session> Lookup(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    Entry& entry = *it->second;
    const Time now = clock_.Now();
    if (entry.older && !IsValid(entry.older->validity, now)) entry.older.reset();
    if (!IsValid(entry.newest.validity, now)) {
      if (!entry.older) {
        Erase(it);
        return std::nullopt;
      }
      entry.newest = std::move(*entry.older);
      entry.older.reset();
    }
    if (entry.newest.validity.single_use) {
      std::optional<Session> taken(std::move(entry.newest.session));
      if (entry.older) {
        entry.newest = std::move(*entry.older);
        entry.older.reset();
        lru_.splice(lru_.begin(), lru_, it->second);
      } else {
        Erase(it);
      }
      return taken;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    return entry.newest.session;
  }

  // Stores `session` as `key`'s newest and makes the server the most recently used, evicting
  // the least recently used server beyond the bound. A single-use session displaced by another
  // single-use one stays as the older (any older than that is dropped); otherwise the new
  // session replaces what was stored. A session already expired is not stored (nor evicts
  // anything).
  void Insert(const std::string& key, Session session, const SslSessionValidity& validity) {
    if (clock_.Now() >= validity.expires) return;
    Stored stored{std::move(session), validity};
    if (auto it = index_.find(key); it != index_.end()) {
      Entry& entry = *it->second;
      if (entry.newest.validity.single_use && validity.single_use) {
        entry.older = std::move(entry.newest);
      } else {
        entry.older.reset();
      }
      entry.newest = std::move(stored);
      lru_.splice(lru_.begin(), lru_, it->second);
      return;
    }
    lru_.push_front(Entry{key, std::move(stored), std::nullopt});
    index_.emplace(key, lru_.begin());
    if (lru_.size() > max_entries_) Erase(index_.find(lru_.back().key));
  }

  // Forgets `key`'s sessions, if any (after a failed handshake, so none is offered again).
  void Remove(const std::string& key) {
    if (auto it = index_.find(key); it != index_.end()) Erase(it);
  }

  // Forgets every session (a flush).
  void Clear() {
    index_.clear();
    lru_.clear();
  }

  // Servers with a session stored, expired ones not yet dropped included.
  size_t size() const { return lru_.size(); }
  // The bound on servers, as constructed.
  size_t max_entries() const { return max_entries_; }
  // The clock validity is judged by (not owned).
  const Clock& clock() const { return clock_; }

 private:
  struct Stored {
    Session session;
    SslSessionValidity validity;
  };
  struct Entry {
    std::string key;
    Stored newest;
    std::optional<Stored> older;  // only behind a single-use newest
  };

  static bool IsValid(const SslSessionValidity& validity, Time now) {
    return now >= validity.issued && now < validity.expires;
  }

  using List = std::list<Entry>;

  void Erase(typename std::unordered_map<std::string, typename List::iterator>::iterator it) {
    lru_.erase(it->second);
    index_.erase(it);
  }

  const Clock& clock_;
  const size_t max_entries_;
  List lru_;  // Front = most recently used.
  std::unordered_map<std::string, typename List::iterator> index_;
};

}  // namespace netstack

#endif  // NET_SOCKET_SSL_CLIENT_SESSION_CACHE_H_
