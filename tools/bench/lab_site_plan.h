// LabSitePlan: a site for `netstack lab` shaped like one recorded page load, planned before
// anything is written. From a recorded page (a TracePage, as the replay's readers give it) it
// decides one generated file per recorded network request: the same request count per host, the
// same response body sizes, hosts renamed to lab names (h0.site1.lab, h1.site1.lab, ... in order
// of first appearance, so the host count and which requests share a host are kept), a file
// extension by the recorded type (so the lab's nginx sends a matching Content-Type), and the
// recorded dependencies as far as a page loader can follow them without running scripts: the
// document references (in HTML) the requests whose parent is the document; a stylesheet
// references its own with CSS url(); every other request (found by a script, or by a request
// that is not generated) is referenced from the document. Pure: no files (lab_site_writer.h
// writes them), so it is testable on fixed pages.
#ifndef TOOLS_BENCH_LAB_SITE_PLAN_H_
#define TOOLS_BENCH_LAB_SITE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

struct LabSiteOptions {
  int site_number = 1;  // hosts are h<K>.site<N>.lab; 0..9999
  // Reference every generated request from the document (none from stylesheets): what a loader
  // that does not read CSS (netstack fetch --page) can discover whole.
  bool flat = false;
  // Bounds: generated files (one per recorded request), bytes of one file, bytes of the site.
  size_t max_files = 2000;
  int64_t max_file_bytes = int64_t{64} << 20;
  int64_t max_site_bytes = int64_t{256} << 20;
};

// Where a generated request is referenced from.
enum class LabSiteReference {
  kNone,          // the document itself (the page's URL)
  kDocument,      // from the document's HTML: its recorded parent was the document
  kStylesheet,    // from a stylesheet's url(): its recorded parent was that stylesheet
  kDocumentFlat,  // from the document's HTML although recorded deeper (a script's request,
                  // or a parent that is not generated): no loader without JS finds it there
};

// "none", "document", "stylesheet", "document-flattened".
const char* LabSiteReferenceName(LabSiteReference reference);

struct LabSiteFile {
  int recorded_index = 0;      // the entry's index in the recorded page
  std::string recorded_url;    // as recorded
  std::string host;            // the lab host name: "h0.site1.lab"
  std::string path;            // "/" for the document, else "/r<index>.<ext>"
  std::string file_name;       // under SITE/<host>/: "index.html", "r3.css"
  std::string url;             // "https://h0.site1.lab/r3.css"
  std::string type;            // the recorded resource type ("stylesheet", "image", ...)
  std::string extension;       // "html", "css", "js", "png", "jpg", "gif", "woff2", "json", ...
  int64_t recorded_bytes = 0;  // the recorded response body bytes (as transferred)
  int64_t bytes = 0;  // the generated file's size: recorded_bytes, or more when its references
                      // do not fit in them
  int referenced_from = -1;  // index in LabSitePlan::files of the referencing file; -1: none
  LabSiteReference reference = LabSiteReference::kNone;
  std::string how;  // the markup that references it: "link", "script", "img", "iframe",
                    // "css-import", "css-background"; empty for the document
};

struct LabSiteHost {
  std::string recorded;  // the recorded host name
  std::string lab;       // its lab name
  int requests = 0;      // generated requests on it
};

struct LabSitePlan {
  std::string page_id;             // the recorded page's id
  std::vector<LabSiteHost> hosts;  // in order of first appearance; hosts[0] serves the document
  std::vector<LabSiteFile> files;  // files[0] is the document; recorded order
  // Recorded entries that are not generated, by reason: served from the browser's cache, failed,
  // not answered with a body a static server sends (1xx, 204, 304, 4xx, 5xx).
  int omitted_cached = 0, omitted_failed = 0, omitted_status = 0;
  int64_t total_bytes = 0;  // of every file
};

// Plans the site of `page`. `name` labels errors ("a.har: page 1"). False with a one-line error:
// a page with no entries, a first entry that is not an HTML document, more files or bytes than
// the options' bounds.
bool PlanLabSite(const TracePage& page, const std::string& name, const LabSiteOptions& options,
                 LabSitePlan* plan, std::string* error);

// The bytes of files[index]: for the document and stylesheets their references, then filler to
// the planned size; for the rest filler only. Deterministic (the same plan gives the same bytes);
// the filler of text files is lowercase letters in a comment, of others pseudo-random bytes.
std::string LabSiteFileBody(const LabSitePlan& plan, size_t index);

}  // namespace netstack

#endif  // TOOLS_BENCH_LAB_SITE_PLAN_H_
