#include "cache/backend.h"

namespace netstack {

const char* EvictionPolicyName(EvictionPolicy policy) {
  switch (policy) {
    case EvictionPolicy::kSizeWeightedLru:
      return "lru";
    case EvictionPolicy::kFrequencyWeighted:
      return "frequency";
  }
  return "lru";
}

bool ParseEvictionPolicy(const std::string& name, EvictionPolicy* policy) {
  for (EvictionPolicy p : {EvictionPolicy::kSizeWeightedLru, EvictionPolicy::kFrequencyWeighted}) {
    if (name == EvictionPolicyName(p)) {
      *policy = p;
      return true;
    }
  }
  return false;
}

nlohmann::json CacheStats::ToJson() const {
  return nlohmann::json{{"type", type},
                        {"path", path},
                        {"eviction", EvictionPolicyName(eviction)},
                        {"entry_count", entry_count},
                        {"total_bytes", total_bytes},
                        {"max_bytes", max_bytes},
                        {"pending_write_bytes", pending_write_bytes},
                        {"open_hits", open_hits},
                        {"open_misses", open_misses},
                        {"creates", creates},
                        {"commits", commits},
                        {"commit_failures", commit_failures},
                        {"dooms", dooms},
                        {"evictions", evictions},
                        {"evicted_bytes", evicted_bytes},
                        {"read_failures", read_failures},
                        {"disk_free_bytes", disk_free_bytes},
                        {"free_space_margin_bytes", free_space_margin_bytes},
                        {"low_space", low_space},
                        {"low_space_refusals", low_space_refusals},
                        {"space_checks", space_checks},
                        {"full_disk_deletes", full_disk_deletes},
                        {"recovery_message", recovery_message}};
}

}  // namespace netstack
