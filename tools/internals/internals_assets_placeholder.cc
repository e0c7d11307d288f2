// Placeholder until embed_assets.cmake generates the real table.
#include "tools/internals/internals_assets.h"
namespace netstack {
const InternalsAsset* FindInternalsAsset(std::string_view) { return nullptr; }
const InternalsAsset* InternalsAssets(size_t* count) { *count = 0; return nullptr; }
}  // namespace netstack
