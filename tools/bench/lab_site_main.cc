// lab_site: a site for `netstack lab` built from the structure of one recorded page load (a HAR
// or a DevTools protocol log, read by the replay's readers): see lab_site_plan.h. Usage:
//
//   lab_site RECORDING -o SITE [--page N] [--site N] [--flat] [--manifest FILE]
//
// Writes SITE/<host>/<file> and the manifest (default SITE.manifest.json), then prints one line:
// the page, its hosts, files and bytes. Exit 0; 2 on bad usage or input (a recording that does
// not read, a page out of range or without a document, a bound passed, SITE not empty), 1 when
// writing fails. Errors are one line on stderr and leave nothing behind.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "tools/bench/lab_site_plan.h"
#include "tools/bench/lab_site_writer.h"
#include "tools/replay/trace/recording_reader.h"

int main(int argc, char** argv) {
  using namespace netstack;
  CLI::App app("lab_site: a lab site shaped like a recorded page load");
  std::string recording, site_dir, manifest;
  int page_number = 1;
  LabSiteOptions options;
  app.add_option("recording", recording, "a HAR or a DevTools protocol log")->required();
  app.add_option("-o,--out", site_dir, "the site folder to write (must not exist, or be empty)")
      ->required();
  app.add_option("--page", page_number, "which page of the recording (1-based)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--site", options.site_number, "hosts are h<K>.site<N>.lab")
      ->check(CLI::Range(0, 9999));
  app.add_flag("--flat", options.flat,
               "reference every request from the document (none from stylesheets)");
  app.add_option("--manifest", manifest, "where the manifest goes (default SITE.manifest.json)");
  app.add_option("--max-files", options.max_files, "at most this many files")
      ->check(CLI::Range(1, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "lab_site: %s\n", e.what());
    return 2;
  }
  while (site_dir.size() > 1 && site_dir.back() == '/') site_dir.pop_back();
  if (manifest.empty()) manifest = site_dir + ".manifest.json";
  HarFile har;
  std::string error;
  if (!ReadRecordingFile(recording, &har, &error)) {
    std::fprintf(stderr, "lab_site: %s\n", error.c_str());
    return 2;
  }
  if (static_cast<size_t>(page_number) > har.pages.size()) {
    std::fprintf(stderr, "lab_site: %s: --page %d, but the recording has %zu page(s)\n",
                 recording.c_str(), page_number, har.pages.size());
    return 2;
  }
  const std::string name = recording + ": page " + std::to_string(page_number);
  LabSitePlan plan;
  if (!PlanLabSite(har.pages[page_number - 1], name, options, &plan, &error)) {
    std::fprintf(stderr, "lab_site: %s\n", error.c_str());
    return 2;
  }
  if (!WriteLabSite(plan, name, options.site_number, site_dir, manifest, &error)) {
    std::fprintf(stderr, "lab_site: %s\n", error.c_str());
    return error.find("not overwritten") != std::string::npos ? 2 : 1;
  }
  std::printf(
      "%s: %zu hosts, %zu files, %lld bytes (omitted: %d cached, %d failed, %d status)"
      " -> %s\n",
      name.c_str(), plan.hosts.size(), plan.files.size(), static_cast<long long>(plan.total_bytes),
      plan.omitted_cached, plan.omitted_failed, plan.omitted_status, site_dir.c_str());
  return 0;
}
