#include "tools/lab/default_site.h"

#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

#include "tools/lab/lab_site.h"

namespace netstack {
namespace {

// `size` bytes of text made of `line` repeated (the last copy cut short).
std::string Repeat(const std::string& line, size_t size) {
  std::string out;
  out.reserve(size);
  while (out.size() < size) out += line;
  out.resize(size);
  return out;
}

// A stylesheet of `size` bytes: rules that differ by their number.
std::string Css(const std::string& name, size_t size) {
  std::string out = "/* " + name + ": netstack lab default site */\n";
  for (int i = 0; out.size() < size; ++i) {
    out += "." + name + "-" + std::to_string(i) + " { margin: " + std::to_string(i % 17) +
           "px; color: #" + std::to_string(100 + i % 900) + "; }\n";
  }
  out.resize(size - 1);
  return out + "\n";
}

// A script of `size` bytes that runs without error: one function, then comment padding.
std::string Js(const std::string& name, size_t size) {
  std::string out = "// " + name + ": netstack lab default site\n(function () {\n  var n = 0;\n" +
                    "  for (var i = 0; i < 100; i++) n += i;\n  window['" + name +
                    "'] = n;\n})();\n";
  return out + Repeat("// padding so the script has a realistic size, deterministic bytes\n",
                      size - out.size());
}

// `size` deterministic pseudo-random bytes (incompressible, as image data is), after a PNG
// signature so the type looks right to a sniffer.
std::string Binary(uint64_t seed, size_t size) {
  std::string out = "\x89PNG\r\n\x1a\n";
  uint64_t x = 0x9E3779B97F4A7C15ULL ^ (seed * 0xBF58476D1CE4E5B9ULL);
  while (out.size() < size) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out.push_back(static_cast<char>(x & 0xff));
  }
  return out;
}

std::string Page() {
  std::string out =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>site0.lab: the netstack lab's default site</title>\n"
      "<link rel=\"stylesheet\" href=\"/css/base.css\">\n"
      "<link rel=\"stylesheet\" href=\"https://static.site0.lab/css/theme.css\">\n"
      "<script src=\"https://static.site0.lab/js/vendor.js\"></script>\n"
      "<script src=\"/js/main.js\" defer></script>\n"
      "<script src=\"https://static.site0.lab/js/app.js\" async></script>\n"
      "</head>\n<body>\n<h1>site0.lab</h1>\n"
      "<img src=\"https://img.site0.lab/img/hero.png\" alt=\"hero\" width=\"800\" "
      "height=\"300\">\n";
  for (int i = 1; i <= 4; ++i) {
    out += "<img src=\"https://img.site0.lab/img/thumb-" + std::to_string(i) +
           ".png\" alt=\"thumbnail " + std::to_string(i) + "\" width=\"160\" height=\"120\">\n";
  }
  out += "<p>" +
         Repeat("The lab serves this page from a namespace behind an emulated link. ", 4000) +
         "</p>\n</body>\n</html>\n";
  return out;
}

}  // namespace

bool WriteDefaultSite(const std::string& site_dir, std::string* error) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"site0.lab/index.html", Page()},
      {"site0.lab/css/base.css", Css("base", 4 * 1024)},
      {"site0.lab/js/main.js", Js("main", 8 * 1024)},
      {"site0.lab/favicon.ico", Binary(0, 1150)},
      {"static.site0.lab/css/theme.css", Css("theme", 6 * 1024)},
      {"static.site0.lab/js/vendor.js", Js("vendor", 24 * 1024)},
      {"static.site0.lab/js/app.js", Js("app", 6 * 1024)},
      {"img.site0.lab/img/hero.png", Binary(1, 16 * 1024)},
  };
  for (int i = 1; i <= 4; ++i) {
    files.emplace_back("img.site0.lab/img/thumb-" + std::to_string(i) + ".png",
                       Binary(1 + i, 2048 + 512 * i));
  }
  for (const auto& [relative, content] : files) {
    const std::filesystem::path path = std::filesystem::path(site_dir) / relative;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      *error = "default site: cannot create " + path.parent_path().string() + ": " + ec.message();
      return false;
    }
    if (!WriteLabFile(path.string(), content, error)) {
      *error = "default site: " + *error;
      return false;
    }
  }
  return true;
}

}  // namespace netstack
