// Profile: the default directory, creation, the lock, and what an unusable path reports.
#include "tools/netstack/profile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/support/temp_dir.h"

using namespace netstack;

namespace {

using test::TempDir;

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

TEST_CASE("profile: the default follows XDG_CACHE_HOME, then HOME") {
  std::map<std::string, const char*> env;
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second;
  };
  CHECK(DefaultProfileDir(getenv).empty());
  env["HOME"] = "/home/u";
  CHECK(DefaultProfileDir(getenv) == "/home/u/.cache/netstack");
  env["XDG_CACHE_HOME"] = "relative/ignored";  // the XDG spec: relative values are invalid
  CHECK(DefaultProfileDir(getenv) == "/home/u/.cache/netstack");
  env["XDG_CACHE_HOME"] = "/xdg";
  CHECK(DefaultProfileDir(getenv) == "/xdg/netstack");
}

TEST_CASE("profile: Open creates the directory tree and takes the lock") {
  TempDir scratch;
  REQUIRE_FALSE(scratch.path().empty());
  const std::string dir = scratch.path() + "/a/b/profile";
  std::unique_ptr<Profile> profile;
  std::string message;
  REQUIRE(Profile::Open(dir + "/", /*create=*/true, &profile, &message) == Profile::Status::kOk);
  CHECK(profile->dir() == dir);
  CHECK(IsDir(dir + "/cache"));
  CHECK(::access((dir + "/lock").c_str(), F_OK) == 0);

  // A second holder (another process, or another Profile here) is refused without waiting.
  std::unique_ptr<Profile> second;
  CHECK(Profile::Open(dir, true, &second, &message) == Profile::Status::kInUse);
  CHECK(second == nullptr);
  CHECK(message == "profile " + dir + " is in use by another netstack");

  // Released with the Profile. Without create, a profile is one a fetch filled: it has the
  // cache's database.
  profile.reset();
  std::ofstream(dir + "/cache/index.db") << "";
  CHECK(Profile::Open(dir, false, &second, &message) == Profile::Status::kOk);
}

TEST_CASE("profile: a missing directory is not created unless asked") {
  TempDir scratch;
  std::unique_ptr<Profile> profile;
  std::string message;
  const std::string dir = scratch.path() + "/none";
  CHECK(Profile::Open(dir, false, &profile, &message) == Profile::Status::kMissing);
  CHECK(message.find(dir) != std::string::npos);
  CHECK_FALSE(IsDir(dir));
}

TEST_CASE("profile: an existing directory without a cache is not a profile, and stays empty") {
  TempDir scratch;
  std::unique_ptr<Profile> profile;
  std::string message;
  const std::string dir = scratch.path() + "/empty";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  CHECK(Profile::Open(dir, false, &profile, &message) == Profile::Status::kMissing);
  CHECK(message == "no netstack profile at " + dir + " (nothing has been cached there)");
  CHECK(profile == nullptr);
  CHECK(::access((dir + "/lock").c_str(), F_OK) != 0);
  CHECK(::access((dir + "/cache").c_str(), F_OK) != 0);
  // An empty cache directory is not enough either.
  REQUIRE(::mkdir((dir + "/cache").c_str(), 0700) == 0);
  CHECK(Profile::Open(dir, false, &profile, &message) == Profile::Status::kMissing);
  CHECK(::access((dir + "/lock").c_str(), F_OK) != 0);
}

TEST_CASE("profile: a file in the way is unusable, with a one-line reason") {
  TempDir scratch;
  const std::string file = scratch.path() + "/file";
  std::ofstream(file) << "x";
  std::unique_ptr<Profile> profile;
  std::string message;
  CHECK(Profile::Open(file, true, &profile, &message) == Profile::Status::kUnusable);
  CHECK(message == "cannot use profile " + file + ": not a directory");
  // A file where DIR/cache should be.
  const std::string dir = scratch.path() + "/p";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  std::ofstream(dir + "/cache") << "x";
  CHECK(Profile::Open(dir, true, &profile, &message) == Profile::Status::kUnusable);
  CHECK(message.find(dir) != std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(Profile::Open("", true, &profile, &message) == Profile::Status::kUnusable);
}
