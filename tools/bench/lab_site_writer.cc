#include "tools/bench/lab_site_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace netstack {
namespace {

namespace fs = std::filesystem;

bool WriteFile(const fs::path& path, const std::string& bytes, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (out) out.close();
  if (!out) {
    *error = path.string() + ": cannot write: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

nlohmann::json LabSiteManifest(const LabSitePlan& plan, const std::string& source,
                               int site_number) {
  nlohmann::json hosts = nlohmann::json::array(), files = nlohmann::json::array();
  for (const LabSiteHost& h : plan.hosts) {
    hosts.push_back({{"recorded", h.recorded}, {"lab", h.lab}, {"requests", h.requests}});
  }
  for (const LabSiteFile& f : plan.files) {
    files.push_back({{"url", f.url},
                     {"path", f.host + "/" + f.file_name},
                     {"recorded_index", f.recorded_index},
                     {"recorded_url", f.recorded_url},
                     {"type", f.type},
                     {"bytes", f.bytes},
                     {"recorded_bytes", f.recorded_bytes},
                     {"reference", LabSiteReferenceName(f.reference)},
                     {"referenced_from", f.referenced_from},
                     {"how", f.how}});
  }
  return {{"format", 1},
          {"source", source},
          {"page", plan.page_id},
          {"site_number", site_number},
          {"hosts", hosts},
          {"files", files},
          {"omitted",
           {{"cached", plan.omitted_cached},
            {"failed", plan.omitted_failed},
            {"status", plan.omitted_status}}},
          {"total_bytes", plan.total_bytes}};
}

bool WriteLabSite(const LabSitePlan& plan, const std::string& source, int site_number,
                  const std::string& site_dir, const std::string& manifest_path,
                  std::string* error) {
  std::error_code ec;
  const fs::path site(site_dir);
  if (fs::exists(site, ec) && !(fs::is_directory(site, ec) && fs::is_empty(site, ec))) {
    *error = site_dir + ": exists and is not an empty folder (not overwritten)";
    return false;
  }
  if (fs::exists(manifest_path, ec)) {
    *error = manifest_path + ": exists (not overwritten)";
    return false;
  }
  const std::string tag = ".tmp" + std::to_string(::getpid());
  const fs::path tmp = site.string() + tag;
  const fs::path tmp_manifest = manifest_path + tag;
  auto fail = [&](const std::string& why) {
    *error = why;
    fs::remove_all(tmp, ec);
    fs::remove(tmp_manifest, ec);
    return false;
  };
  if (!fs::create_directories(tmp, ec) || ec) {
    return fail(tmp.string() + ": cannot create: " + ec.message());
  }
  for (const LabSiteHost& h : plan.hosts) {
    if (!fs::create_directory(tmp / h.lab, ec) || ec) {
      return fail((tmp / h.lab).string() + ": cannot create: " + ec.message());
    }
  }
  std::string why;
  for (size_t i = 0; i < plan.files.size(); ++i) {
    const LabSiteFile& f = plan.files[i];
    if (!WriteFile(tmp / f.host / f.file_name, LabSiteFileBody(plan, i), &why)) return fail(why);
  }
  if (!WriteFile(tmp_manifest, LabSiteManifest(plan, source, site_number).dump(1) + "\n", &why)) {
    return fail(why);
  }
  fs::remove(site, ec);  // the empty folder, if one was there
  fs::rename(tmp, site, ec);
  if (ec) return fail(site_dir + ": cannot rename into place: " + ec.message());
  fs::rename(tmp_manifest, manifest_path, ec);
  if (ec) {
    const std::string message = manifest_path + ": cannot rename into place: " + ec.message();
    fs::remove_all(site, ec);
    return fail(message);
  }
  return true;
}

}  // namespace netstack
