// DefaultSite: the site `netstack lab` serves when the user gives none, written from code (no
// files in the repository, the same bytes every time): a page on site0.lab that references a
// stylesheet and a script on its own host, a stylesheet and two scripts on static.site0.lab and
// five images on img.site0.lab, about 80 KB in all, so one page load exercises three hosts, DNS
// for each, several connections and render-blocking as well as deferred resources:
//   netstack lab -- netstack fetch --page https://site0.lab/
#ifndef TOOLS_LAB_DEFAULT_SITE_H_
#define TOOLS_LAB_DEFAULT_SITE_H_

#include <string>

namespace netstack {

inline constexpr char kDefaultSitePageUrl[] = "https://site0.lab/";

// Writes the default site into `site_dir` (made if missing, with parents): SITE/<host>/<path>.
// Returns false with a one-line *error naming the file that could not be written.
bool WriteDefaultSite(const std::string& site_dir, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_DEFAULT_SITE_H_
