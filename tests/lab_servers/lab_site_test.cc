// ReadLabSite and IsValidLabHostName (tools/lab/lab_site.h): what a site folder may hold, and the
// one-line error for each thing it may not.
#include "tools/lab/lab_site.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/support/temp_dir.h"

namespace netstack {
namespace {

using test::TempDir;

TEST_CASE("IsValidLabHostName accepts lowercase DNS names and refuses the rest", "[lab]") {
  for (const char* good : {"site0.lab", "a", "img.site0.lab", "x-1.example.com", "123.lab",
                           "a.b.c.d.e", "xn--bcher-kva.example"}) {
    INFO(good);
    CHECK(IsValidLabHostName(good));
  }
  for (const char* bad : {"", "Site0.lab", "a_b.lab", "-a.lab", "a-.lab", "a..lab", ".a.lab",
                          "a.lab.", "1.2.3.4", "a.123", "a b.lab", "a/b", "..", "."}) {
    INFO(bad);
    CHECK_FALSE(IsValidLabHostName(bad));
  }
  std::string label(63, 'a');
  CHECK(IsValidLabHostName(label + ".lab"));
  label.push_back('a');
  CHECK_FALSE(IsValidLabHostName(label + ".lab"));  // a label of 64
  std::string long_name;
  while (long_name.size() < 250) long_name += "abcdefghi.";
  CHECK(IsValidLabHostName(long_name + "lab"));         // 253 characters
  CHECK_FALSE(IsValidLabHostName(long_name + "labs"));  // 254
}

TEST_CASE("ReadLabSite lists the host folders in byte order", "[lab]") {
  TempDir dir("lab-site");
  dir.Write("site/b.lab/index.html", "b");
  dir.Write("site/a.lab/index.html", "a");
  dir.Write("site/a.lab/deep/er/file.js", "js");
  dir.Write("site/c-1.lab/x", "");
  std::vector<std::string> hosts;
  std::string error;
  REQUIRE(ReadLabSite(dir.Join("site"), &hosts, &error));
  CHECK(error.empty());
  CHECK(hosts == std::vector<std::string>{"a.lab", "b.lab", "c-1.lab"});
}

TEST_CASE("ReadLabSite names what is wrong with a site folder", "[lab]") {
  TempDir dir("lab-site");
  std::vector<std::string> hosts{"stale"};
  std::string error;

  SECTION("missing") {
    CHECK_FALSE(ReadLabSite(dir.Join("nope"), &hosts, &error));
    CHECK(error == "site folder " + dir.Join("nope") + ": No such file or directory");
  }
  SECTION("a file, not a folder") {
    dir.Write("file", "x");
    CHECK_FALSE(ReadLabSite(dir.Join("file"), &hosts, &error));
    CHECK(error == "site folder " + dir.Join("file") + ": not a folder");
  }
  SECTION("empty") {
    ::mkdir(dir.Join("site").c_str(), 0755);
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error.find("no host folders") != std::string::npos);
  }
  SECTION("a file where a host folder belongs") {
    dir.Write("site/a.lab/index.html", "a");
    dir.Write("site/index.html", "x");
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error.rfind(dir.Join("site/index.html") + ": not a folder", 0) == 0);
  }
  SECTION("a folder name that is not a host name") {
    dir.Write("site/Upper.lab/index.html", "a");
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error ==
          dir.Join("site/Upper.lab") + ": the folder name is not a valid lowercase host name");
  }
  SECTION("a symbolic link under a host") {
    dir.Write("site/a.lab/index.html", "a");
    REQUIRE(::symlink("/etc/passwd", dir.Join("site/a.lab/passwd").c_str()) == 0);
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error ==
          dir.Join("site/a.lab/passwd") + ": not a regular file or folder (a symbolic link)");
  }
  SECTION("a symbolic link as a host folder") {
    dir.Write("real/index.html", "a");
    ::mkdir(dir.Join("site").c_str(), 0755);
    REQUIRE(::symlink(dir.Join("real").c_str(), dir.Join("site/a.lab").c_str()) == 0);
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error.rfind(dir.Join("site/a.lab") + ": not a folder", 0) == 0);
  }
  SECTION("too many hosts") {
    ::mkdir(dir.Join("site").c_str(), 0755);
    for (size_t i = 0; i <= kLabSiteMaxHosts; ++i) {
      REQUIRE(::mkdir(dir.Join("site/h" + std::to_string(i) + ".lab").c_str(), 0755) == 0);
    }
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error == "site folder " + dir.Join("site") + ": more than 4000 hosts");
  }
  SECTION("too deep") {
    std::string path = "site/a.lab";
    for (int i = 0; i <= kLabSiteMaxDepth; ++i) path += "/d";
    dir.Write(path + "/f", "x");
    CHECK_FALSE(ReadLabSite(dir.Join("site"), &hosts, &error));
    CHECK(error.find("nested deeper than 32 levels") != std::string::npos);
  }
  CHECK(hosts.empty());
}

TEST_CASE("ReadLabSite accepts exactly the most hosts it allows", "[lab]") {
  TempDir dir("lab-site");
  ::mkdir(dir.Join("site").c_str(), 0755);
  for (size_t i = 0; i < kLabSiteMaxHosts; ++i) {
    REQUIRE(::mkdir(dir.Join("site/h" + std::to_string(i) + ".lab").c_str(), 0755) == 0);
  }
  std::vector<std::string> hosts;
  std::string error;
  CHECK(ReadLabSite(dir.Join("site"), &hosts, &error));
  CHECK(hosts.size() == kLabSiteMaxHosts);
}

}  // namespace
}  // namespace netstack
