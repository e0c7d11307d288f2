// A profile directory: netstack's persistent state (the disk cache in DIR/cache, the predictor's
// learned tables in DIR/predictor.db), guarded by an advisory lock (flock on DIR/lock) so two
// processes never share one cache database.
//
// Layout (docs/cache.md):
//   DIR/lock    empty file; whoever holds flock(LOCK_EX) on it owns the profile
//   DIR/cache/  the DiskBackend's directory (its index database and body files)
//   DIR/predictor.db  the predictor's learned tables (predictor/predictor_store.h), per policy
//
// The lock is taken without waiting: a profile held by another process is reported, and the
// caller decides (fetch runs without the cache; `netstack cache` refuses). The kernel releases
// the lock when the holder exits, even on SIGKILL, so a crash never leaves a stale lock.
#ifndef TOOLS_NETSTACK_PROFILE_H_
#define TOOLS_NETSTACK_PROFILE_H_

#include <functional>
#include <memory>
#include <string>

namespace netstack {

// The profile used when --profile is not given: $XDG_CACHE_HOME/netstack if XDG_CACHE_HOME is
// an absolute path, else $HOME/.cache/netstack; "" if neither variable helps. `getenv` is a
// parameter so tests choose the environment.
std::string DefaultProfileDir(const std::function<const char*(const char*)>& getenv);

class Profile {
 public:
  enum class Status {
    kOk,
    kMissing,   // no profile there (and none was to be created): DIR, or DIR/cache/index.db,
                // does not exist
    kInUse,     // another process (or another Profile in this one) holds the lock
    kUnusable,  // not a directory, no permission, or the lock file cannot be opened
  };

  // Opens `dir` and takes its lock. With `create`, makes DIR and DIR/cache (mode 0700) when
  // missing. Without it, a DIR without DIR/cache/index.db is kMissing and nothing is created in
  // it (not even the lock file). Returns kOk with *profile set, or another status with a one-line
  // *message naming the directory and the reason. Never blocks.
  static Status Open(const std::string& dir, bool create, std::unique_ptr<Profile>* profile,
                     std::string* message);

  // Releases the lock.
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  const std::string& dir() const { return dir_; }
  // DIR/cache: the disk cache's directory.
  std::string cache_dir() const { return dir_ + "/cache"; }
  // DIR/predictor.db: the PredictorStore's database (created on first use by the store).
  std::string predictor_db_path() const { return dir_ + "/predictor.db"; }

 private:
  Profile(std::string dir, int lock_fd) : dir_(std::move(dir)), lock_fd_(lock_fd) {}

  const std::string dir_;
  const int lock_fd_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PROFILE_H_
