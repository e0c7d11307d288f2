// The internals page's static files (tools/internals/assets/), built into the binary: CMake
// (embed_assets.cmake) turns each file into bytes in a generated .cc at build time, so the page
// needs nothing on disk and nothing from outside. Only these exact paths are ever served.
#ifndef TOOLS_INTERNALS_INTERNALS_ASSETS_H_
#define TOOLS_INTERNALS_INTERNALS_ASSETS_H_

#include <cstddef>
#include <string_view>

namespace netstack {

struct InternalsAsset {
  std::string_view path;          // "/", "/app.js", "/style.css", ...
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view data;
};

// The placeholder in index.html the router replaces with the per-process token (hex).
inline constexpr std::string_view kInternalsTokenPlaceholder = "{{NETSTACK_TOKEN}}";

// The asset served at exactly `path`, or null. No normalization: "/./app.js" is null.
const InternalsAsset* FindInternalsAsset(std::string_view path);
// Every asset (for tests and the docs).
const InternalsAsset* InternalsAssets(size_t* count);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_INTERNALS_ASSETS_H_
