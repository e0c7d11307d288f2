// Writes a planned lab site (lab_site_plan.h) to disk: SITE/<lab host>/<file> for every planned
// file, the layout `netstack lab --site SITE` serves (tools/lab/lab_servers.h), and a manifest
// (JSON) that maps each generated URL to the recorded request it stands for.
#ifndef TOOLS_BENCH_LAB_SITE_WRITER_H_
#define TOOLS_BENCH_LAB_SITE_WRITER_H_

#include <nlohmann/json.hpp>
#include <string>

#include "tools/bench/lab_site_plan.h"

namespace netstack {

// The manifest: {"format": 1, "source", "page", "site_number", "hosts": [{"recorded", "lab",
// "requests"}], "files": [{"url", "path", "recorded_index", "recorded_url", "type", "bytes",
// "recorded_bytes", "reference", "referenced_from", "how"}], "omitted": {"cached", "failed",
// "status"}, "total_bytes"}. `source` names the recording.
nlohmann::json LabSiteManifest(const LabSitePlan& plan, const std::string& source, int site_number);

// Writes the site into `site_dir` (which must not exist, or be an empty folder) and the manifest
// to `manifest_path`. Everything is written beside them first and renamed into place, so a
// failure leaves nothing behind. False with a one-line error naming the path and the reason.
bool WriteLabSite(const LabSitePlan& plan, const std::string& source, int site_number,
                  const std::string& site_dir, const std::string& manifest_path,
                  std::string* error);

}  // namespace netstack

#endif  // TOOLS_BENCH_LAB_SITE_WRITER_H_
