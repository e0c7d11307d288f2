// Helpers both policies share: how a hint's priority and expiry follow from its motivation, the
// keys tables use for pages and origins, exponential decay on `now`, and reading JSON row data
// without exceptions. Plain functions, no state.
#ifndef PREDICTOR_POLICY_UTIL_H_
#define PREDICTOR_POLICY_UTIL_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/clock.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "predictor/hint.h"
#include "predictor/predictor_policy.h"

namespace netstack {

// The most sockets a preconnect hint asks for (Chrome's max_sockets_per_group).
inline constexpr int kMaxPreconnectSockets = 6;

// Queue priority of a motivation: user gestures first (mouse-over, omnibox), then the page being
// loaded now (early load, self and learned referral, markup), startup last. See README.md.
int HintPriority(HintMotivation motivation);
// How long a hint of that motivation stays worth starting: a hover or a keystroke is stale in
// seconds (the click or the next keystroke comes, or never does); a page's referrals matter
// for its load; the startup list for the start-up burst.
TimeDelta HintLifetime(HintMotivation motivation);

// A hint with priority and expiry filled from its motivation. `likelihood` is clamped to 0..1.
Hint MakeHint(HintMotivation motivation, SpeculativeAction action, const SchemeHostPort& origin,
              int sockets, double likelihood, const std::string& page, TimeTicks now);
// A kFetchAhead hint for `url`.
Hint MakeFetchHint(HintMotivation motivation, const Url& url, double likelihood,
                   const std::string& page, TimeTicks now);

// The static-hint rule both policies share: dns-prefetch pre-resolves, preconnect preconnects 1
// socket, preload fetches ahead (likelihood 1), prefetch fetches ahead (0.5: it is for a later
// navigation). Motivation kStaticReferral. Nothing for an invalid target.
void AppendStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                      std::vector<Hint>* out);

// "https://a.example:443": the key of an origin in every table.
inline std::string OriginKey(const SchemeHostPort& origin) { return origin.ToString(); }
// The origin of a page URL, as a key.
inline std::string PageOriginKey(const Url& page) { return page.scheme_host_port().ToString(); }
// The page URL without query (and fragment, which Url never keeps): the learned policy's page.
std::string PageKey(const Url& page);
// Parses an OriginKey back. False if `key` is not "scheme://host:port" of http(s).
bool ParseOriginKey(const std::string& key, SchemeHostPort* origin);

// 2^(-elapsed / half_life): the weight left to an observation `elapsed` old. 1 when the half
// life is not positive (no decay) or elapsed is not positive.
double DecayFactor(TimeDelta elapsed, double half_life_days);

// Reads a finite number / a non-negative integer from `data[name]`; false when missing or of
// the wrong type (the caller skips the row).
bool ReadNumber(const nlohmann::json& data, const char* name, double* out);
bool ReadCount(const nlohmann::json& data, const char* name, uint64_t* out);

// Microseconds <-> TimeDelta for rows (times are persisted as ages, see README.md).
inline int64_t ToMicros(TimeDelta d) { return d.count(); }
inline TimeDelta FromMicros(int64_t us) { return TimeDelta(us); }

// The meta row a caller saves with a policy's rows: {table "meta", key "saved_at", data
// {"wall_us": microseconds since the Unix epoch}}. Ages in rows count from the save, so a later
// process loads them at `now - (wall now - saved_at)`: the time between processes decays the
// estimates too. Both policies accept meta rows in LoadRows and ignore them (not skipped).
inline constexpr char kMetaTable[] = "meta";
PredictorRow MakeSavedAtRow(Time wall_now);
// The saved_at of the first well-formed meta row of `rows`; false when there is none.
bool FindSavedAt(const std::vector<PredictorRow>& rows, Time* saved_at);
// The TimeTicks to give LoadRows: `now` minus the wall time since `saved_at`, that gap
// clamped to 0..kMaxRowAge (a clock set back loads as if no time passed; a corrupt or ancient
// stamp decays no further than the oldest age a row may carry).
TimeTicks LoadTimeAfterGap(TimeTicks now, Time wall_now, Time saved_at);

// The oldest age a row may carry (about 10 years): older is corrupt (or decayed to nothing).
inline constexpr TimeDelta kMaxRowAge = std::chrono::hours(24 * 366 * 10);

// Reads the row age `data[name]` (microseconds, as AppendRows wrote it) and sets `*updated` to
// `now` minus it. False (the caller skips the row, `*updated` untouched) when it is missing, not
// a finite number, negative (it would put the row in the future) or older than kMaxRowAge.
bool ReadAge(const nlohmann::json& data, const char* name, TimeTicks now, TimeTicks* updated);

// `value` clamped to [lo, hi] as a double, then converted: never undefined, whatever a corrupt
// row holds (NaN gives lo). Requires lo <= hi.
int ClampToInt(double value, int lo, int hi);

// The entry of `map` (std::map / unordered_map) whose rank(value) is lowest (the least
// recently used, for a last-use rank); map->end() when empty. Linear: every table it serves is
// small and evicts one entry per insertion past its bound.
template <typename Map, typename Rank>
typename Map::iterator FindLowest(Map* map, Rank rank) {
  auto lowest = map->begin();
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (rank(it->second) < rank(lowest->second)) lowest = it;
  }
  return lowest;
}

// Erases entries of lowest rank until `map` has fewer than `bound` (>= 1) entries: room for
// one more.
template <typename Map, typename Rank>
void EvictLowestUntilRoom(Map* map, size_t bound, Rank rank) {
  while (!map->empty() && map->size() >= bound) map->erase(FindLowest(map, rank));
}

}  // namespace netstack

#endif  // PREDICTOR_POLICY_UTIL_H_
