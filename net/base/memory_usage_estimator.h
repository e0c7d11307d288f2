// Estimates of the heap memory a container holds, for the internals page's Memory view (like
// Chromium's base/trace_event/memory_usage_estimator.h). EstimateMemoryUsage(x) is the bytes x
// owns on the heap, not counting sizeof(x) itself (that is counted by whatever holds x), so the
// estimates nest: a map's estimate counts its nodes and, through EstimateMemoryUsage of each key
// and value, what they own.
//
// These are estimates, not measurements: element counts times sizes, with the node layouts of
// libstdc++ (and libc++, which is close): a tree node (std::map, std::set) is the value plus 4
// words (colour, parent, left, right); a list node the value plus 2 words; an unordered_map node
// the value plus a next pointer and the cached hash, plus one word per bucket. Malloc's own
// overhead (headers, rounding) is not counted: the Memory view's "unaccounted" row shows it.
//
// Types: std::string (its capacity when not stored inline), Url and SchemeHostPort (their
// strings), the standard containers, pairs,
// arrays, unique_ptr (the pointee as its static type: not for polymorphic objects), anything
// trivially destructible (0), and any class with a `size_t EstimateMemoryUsage() const` member.
// Other types get an overload found by argument-dependent lookup (declare it in the type's
// namespace before the call), or the caller sums their parts by hand.
#ifndef NET_BASE_MEMORY_USAGE_ESTIMATOR_H_
#define NET_BASE_MEMORY_USAGE_ESTIMATOR_H_

#include <array>
#include <concepts>
#include <cstddef>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "net/base/url.h"

namespace netstack {

// Bytes of one node of a std::map / std::set / std::multiset holding `Value`.
template <typename Value>
constexpr size_t TreeNodeBytes() {
  return sizeof(Value) + 4 * sizeof(void*);
}
// Bytes of one std::list node holding `Value`.
template <typename Value>
constexpr size_t ListNodeBytes() {
  return sizeof(Value) + 2 * sizeof(void*);
}
// Bytes of one std::unordered_map / unordered_set node holding `Value` (next pointer and cached
// hash).
template <typename Value>
constexpr size_t HashNodeBytes() {
  return sizeof(Value) + 2 * sizeof(void*);
}

// Every overload is declared before any is defined, so a container of containers finds the
// inner overload whatever the order below.
size_t EstimateMemoryUsage(const std::string& s);
size_t EstimateMemoryUsage(const SchemeHostPort& origin);
size_t EstimateMemoryUsage(const Url& url);
template <typename T>
requires std::is_trivially_destructible_v<T> size_t EstimateMemoryUsage(const T&);
template <typename T>
requires requires(const T& t) {
  { t.EstimateMemoryUsage() } -> std::convertible_to<size_t>;
}
size_t EstimateMemoryUsage(const T& t);
template <typename A, typename B>
size_t EstimateMemoryUsage(const std::pair<A, B>& p);
template <typename T, size_t N>
requires(!std::is_trivially_destructible_v<T>) size_t
    EstimateMemoryUsage(const std::array<T, N>& a);
template <typename T, typename D>
size_t EstimateMemoryUsage(const std::unique_ptr<T, D>& p);
template <typename T, typename A>
size_t EstimateMemoryUsage(const std::vector<T, A>& v);
template <typename T, typename A>
size_t EstimateMemoryUsage(const std::list<T, A>& l);
template <typename T, typename A>
size_t EstimateMemoryUsage(const std::deque<T, A>& d);
template <typename K, typename V, typename C, typename A>
size_t EstimateMemoryUsage(const std::map<K, V, C, A>& m);
template <typename K, typename C, typename A>
size_t EstimateMemoryUsage(const std::set<K, C, A>& s);
template <typename K, typename C, typename A>
size_t EstimateMemoryUsage(const std::multiset<K, C, A>& s);
template <typename K, typename V, typename H, typename E, typename A>
size_t EstimateMemoryUsage(const std::unordered_map<K, V, H, E, A>& m);
template <typename K, typename H, typename E, typename A>
size_t EstimateMemoryUsage(const std::unordered_set<K, H, E, A>& s);

// The sum of EstimateMemoryUsage over [begin, end).
template <typename It>
size_t EstimateIterableMemoryUsage(It begin, It end) {
  size_t bytes = 0;
  for (; begin != end; ++begin) bytes += EstimateMemoryUsage(*begin);
  return bytes;
}

// A string's heap block: none while it fits in the object (the small-string buffer), else its
// capacity and the terminating NUL.
inline size_t EstimateMemoryUsage(const std::string& s) {
  const char* data = s.data();
  const char* object = reinterpret_cast<const char*>(&s);
  if (data >= object && data < object + sizeof(s)) return 0;
  return s.capacity() + 1;
}

inline size_t EstimateMemoryUsage(const SchemeHostPort& origin) {
  return EstimateMemoryUsage(origin.scheme) + EstimateMemoryUsage(origin.host);
}

inline size_t EstimateMemoryUsage(const Url& url) {
  return EstimateMemoryUsage(url.scheme()) + EstimateMemoryUsage(url.host()) +
         EstimateMemoryUsage(url.path_and_query()) + EstimateMemoryUsage(url.spec());
}

template <typename T>
requires std::is_trivially_destructible_v<T> size_t EstimateMemoryUsage(const T&) { return 0; }

template <typename T>
requires requires(const T& t) {
  { t.EstimateMemoryUsage() } -> std::convertible_to<size_t>;
}
size_t EstimateMemoryUsage(const T& t) { return t.EstimateMemoryUsage(); }

template <typename A, typename B>
size_t EstimateMemoryUsage(const std::pair<A, B>& p) {
  return EstimateMemoryUsage(p.first) + EstimateMemoryUsage(p.second);
}

template <typename T, size_t N>
requires(!std::is_trivially_destructible_v<T>) size_t
    EstimateMemoryUsage(const std::array<T, N>& a) {
  return EstimateIterableMemoryUsage(a.begin(), a.end());
}

template <typename T, typename D>
size_t EstimateMemoryUsage(const std::unique_ptr<T, D>& p) {
  return p ? sizeof(T) + EstimateMemoryUsage(*p) : 0;
}

template <typename T, typename A>
size_t EstimateMemoryUsage(const std::vector<T, A>& v) {
  return v.capacity() * sizeof(T) + EstimateIterableMemoryUsage(v.begin(), v.end());
}

template <typename T, typename A>
size_t EstimateMemoryUsage(const std::list<T, A>& l) {
  return l.size() * ListNodeBytes<T>() + EstimateIterableMemoryUsage(l.begin(), l.end());
}

// libstdc++'s deque: 512-byte blocks (one element per block when larger) and a map of block
// pointers (at least 8).
template <typename T, typename A>
size_t EstimateMemoryUsage(const std::deque<T, A>& d) {
  constexpr size_t kBlockBytes = sizeof(T) < 512 ? 512 : sizeof(T);
  constexpr size_t kPerBlock = kBlockBytes / sizeof(T);
  const size_t blocks = d.size() / kPerBlock + 1;
  const size_t map_slots = blocks + 2 < 8 ? 8 : blocks + 2;
  return blocks * kBlockBytes + map_slots * sizeof(void*) +
         EstimateIterableMemoryUsage(d.begin(), d.end());
}

template <typename K, typename V, typename C, typename A>
size_t EstimateMemoryUsage(const std::map<K, V, C, A>& m) {
  return m.size() * TreeNodeBytes<std::pair<const K, V>>() +
         EstimateIterableMemoryUsage(m.begin(), m.end());
}

template <typename K, typename C, typename A>
size_t EstimateMemoryUsage(const std::set<K, C, A>& s) {
  return s.size() * TreeNodeBytes<K>() + EstimateIterableMemoryUsage(s.begin(), s.end());
}

template <typename K, typename C, typename A>
size_t EstimateMemoryUsage(const std::multiset<K, C, A>& s) {
  return s.size() * TreeNodeBytes<K>() + EstimateIterableMemoryUsage(s.begin(), s.end());
}

template <typename K, typename V, typename H, typename E, typename A>
size_t EstimateMemoryUsage(const std::unordered_map<K, V, H, E, A>& m) {
  return m.bucket_count() * sizeof(void*) + m.size() * HashNodeBytes<std::pair<const K, V>>() +
         EstimateIterableMemoryUsage(m.begin(), m.end());
}

template <typename K, typename H, typename E, typename A>
size_t EstimateMemoryUsage(const std::unordered_set<K, H, E, A>& s) {
  return s.bucket_count() * sizeof(void*) + s.size() * HashNodeBytes<K>() +
         EstimateIterableMemoryUsage(s.begin(), s.end());
}

}  // namespace netstack

#endif  // NET_BASE_MEMORY_USAGE_ESTIMATOR_H_
