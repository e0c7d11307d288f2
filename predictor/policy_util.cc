#include "predictor/policy_util.h"

#include <algorithm>
#include <cmath>

#include "net/base/net_error.h"

namespace netstack {

int HintPriority(HintMotivation motivation) {
  switch (motivation) {
    case HintMotivation::kMouseOver:
      return 600;  // a click is likely within ~200 ms: the most urgent
    case HintMotivation::kOmnibox:
      return 500;
    case HintMotivation::kEarlyLoad:
      return 400;  // the document of the page starting now: on the critical path
    case HintMotivation::kSelfReferral:
      return 350;
    case HintMotivation::kStaticReferral:
      return 300;  // the page asked explicitly
    case HintMotivation::kLearnedReferral:
      return 250;
    case HintMotivation::kStartupList:
      return 100;
  }
  return 0;
}

TimeDelta HintLifetime(HintMotivation motivation) {
  switch (motivation) {
    case HintMotivation::kMouseOver:
      return Seconds(3);
    case HintMotivation::kOmnibox:
      return Seconds(2);
    case HintMotivation::kEarlyLoad:
    case HintMotivation::kSelfReferral:
    case HintMotivation::kStaticReferral:
    case HintMotivation::kLearnedReferral:
      return Seconds(5);
    case HintMotivation::kStartupList:
      return Seconds(10);
  }
  return Seconds(5);
}

Hint MakeHint(HintMotivation motivation, SpeculativeAction action, const SchemeHostPort& origin,
              int sockets, double likelihood, const std::string& page, TimeTicks now) {
  Hint hint;
  hint.motivation = motivation;
  hint.action = action;
  hint.origin = origin;
  hint.sockets = std::clamp(sockets, 1, kMaxPreconnectSockets);
  hint.likelihood = std::isfinite(likelihood) ? std::clamp(likelihood, 0.0, 1.0) : 0.0;
  hint.priority = HintPriority(motivation);
  hint.page = page;
  hint.created = now;
  hint.expires = now + HintLifetime(motivation);
  return hint;
}

Hint MakeFetchHint(HintMotivation motivation, const Url& url, double likelihood,
                   const std::string& page, TimeTicks now) {
  Hint hint = MakeHint(motivation, SpeculativeAction::kFetchAhead, url.scheme_host_port(), 1,
                       likelihood, page, now);
  hint.url = url;
  return hint;
}

void AppendStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                      std::vector<Hint>* out) {
  if (!target.is_valid()) return;
  const HintMotivation m = HintMotivation::kStaticReferral;
  switch (kind) {
    case StaticHintKind::kDnsPrefetch:
      out->push_back(MakeHint(m, SpeculativeAction::kPreresolve, target.scheme_host_port(), 1, 1.0,
                              page.spec(), now));
      break;
    case StaticHintKind::kPreconnect:
      out->push_back(MakeHint(m, SpeculativeAction::kPreconnect, target.scheme_host_port(), 1, 1.0,
                              page.spec(), now));
      break;
    case StaticHintKind::kPreload:
      out->push_back(MakeFetchHint(m, target, 1.0, page.spec(), now));
      break;
    case StaticHintKind::kPrefetch:
      out->push_back(MakeFetchHint(m, target, 0.5, page.spec(), now));
      break;
  }
}

std::string PageKey(const Url& page) {
  const std::string& spec = page.spec();
  size_t q = spec.find('?');
  return q == std::string::npos ? spec : spec.substr(0, q);
}

bool ParseOriginKey(const std::string& key, SchemeHostPort* origin) {
  Url url;
  std::string message;
  if (Url::Parse(key + "/", &url, &message) != OK) return false;
  if (url.path_and_query() != "/") return false;
  *origin = url.scheme_host_port();
  return OriginKey(*origin) == key;  // canonical keys only, so a row maps to one origin
}

double DecayFactor(TimeDelta elapsed, double half_life_days) {
  if (half_life_days <= 0 || elapsed.count() <= 0) return 1.0;
  double days = static_cast<double>(elapsed.count()) / (86400.0 * 1e6);
  return std::exp2(-days / half_life_days);
}

bool ReadNumber(const nlohmann::json& data, const char* name, double* out) {
  if (!data.is_object()) return false;
  auto it = data.find(name);
  if (it == data.end() || !it->is_number()) return false;
  double v = it->get<double>();
  if (!std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool ReadCount(const nlohmann::json& data, const char* name, uint64_t* out) {
  if (!data.is_object()) return false;
  auto it = data.find(name);
  if (it == data.end() || !it->is_number_integer()) return false;
  if (it->is_number_unsigned()) {
    *out = it->get<uint64_t>();
    return true;
  }
  int64_t v = it->get<int64_t>();
  if (v < 0) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

bool ReadAge(const nlohmann::json& data, const char* name, TimeTicks now, TimeTicks* updated) {
  double age_us;
  if (!ReadNumber(data, name, &age_us)) return false;
  if (age_us < 0 || age_us > static_cast<double>(ToMicros(kMaxRowAge))) return false;
  *updated = now - FromMicros(static_cast<int64_t>(age_us));
  return true;
}

int ClampToInt(double value, int lo, int hi) {
  if (std::isnan(value)) return lo;
  return static_cast<int>(std::clamp(value, static_cast<double>(lo), static_cast<double>(hi)));
}

PredictorRow MakeSavedAtRow(Time wall_now) {
  return PredictorRow{kMetaTable, "saved_at", "", {{"wall_us", ToUnixMicros(wall_now)}}};
}

bool FindSavedAt(const std::vector<PredictorRow>& rows, Time* saved_at) {
  for (const PredictorRow& row : rows) {
    if (row.table != kMetaTable || row.key != "saved_at") continue;
    if (!row.data.is_object()) continue;
    auto it = row.data.find("wall_us");
    if (it == row.data.end() || !it->is_number_integer()) continue;
    *saved_at = TimeFromUnixMicros(it->get<int64_t>());
    return true;
  }
  return false;
}

TimeTicks LoadTimeAfterGap(TimeTicks now, Time wall_now, Time saved_at) {
  if (saved_at >= wall_now) return now;
  // Compared before subtracting: a corrupt stamp far in the past must not overflow.
  if (saved_at <= wall_now - kMaxRowAge) return now - kMaxRowAge;
  return now - (wall_now - saved_at);
}

}  // namespace netstack
