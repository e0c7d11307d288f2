// LabSite: the site the lab's servers serve, read from a folder. SITE/<host name>/<path> is
// served as https://<host name>/<path>: every entry of SITE must be a folder named by a valid,
// lowercase DNS host name, and everything under it a regular file or a folder. Reading a site
// only checks and lists; it writes nothing.
#ifndef TOOLS_LAB_LAB_SITE_H_
#define TOOLS_LAB_LAB_SITE_H_

#include <cstddef>
#include <string>
#include <vector>

namespace netstack {

// Bounds on a site (each hit is an error naming the site folder, never a truncated site).
inline constexpr size_t kLabSiteMaxHosts = 4000;
inline constexpr size_t kLabSiteMaxFiles = 200000;  // files and folders under all hosts
inline constexpr int kLabSiteMaxDepth = 32;         // folder levels below a host's folder

// True if `name` is a host name the lab serves: lowercase ASCII letters, digits and '-' in
// dot-separated labels of 1 to 63 characters, 253 characters at most, no label starting or
// ending with '-', and a last label that is not all digits (that would read as an address).
bool IsValidLabHostName(const std::string& name);

// Lists the host folders of `site_dir` in byte order of their names (so a site always gets
// the same addresses) into *hosts. Returns false with a one-line *error naming the folder or
// entry that is wrong: site_dir missing or not a folder, unreadable, empty (no hosts), an entry
// that is not a folder, a folder name that is not a valid host name, more than
// kLabSiteMaxHosts hosts, a file under a host that is not a regular file or folder (a symbolic
// link, a socket), more than kLabSiteMaxFiles entries or deeper than kLabSiteMaxDepth.
bool ReadLabSite(const std::string& site_dir, std::vector<std::string>* hosts, std::string* error);

// Writes `content` to `path` (replacing it), as the plan and the default site write their files.
// False with "cannot write PATH" in *error.
bool WriteLabFile(const std::string& path, const std::string& content, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_SITE_H_
