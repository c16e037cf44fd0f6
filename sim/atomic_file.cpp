#include "sim/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinkHops = 40;  // as the kernel's own limit (ELOOP)

// What a non-regular file is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// `path`, and its resolved target when they differ, for messages.
std::string shown(const fs::path& path, const fs::path& target) {
  return target == path ? std::string() : " (which links to " + target.string() + ")";
}

[[noreturn]] void fail(const fs::path& path, const std::string& message) {
  throw ConfigError(path.string(), "", message);
}

std::string errno_text(int err) { return std::strerror(err); }

// Creates `tmp` exclusively (never through a link someone left there); one stale leftover of an
// earlier run with the same pid is removed first. Returns the descriptor or -1 with errno set.
int create_temporary(const fs::path& tmp) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  int fd = ::open(tmp.c_str(), kFlags, 0666);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0)
    fd = ::open(tmp.c_str(), kFlags, 0666);
  return fd;
}

// Writes all of `content` to `fd`; 0 or the errno of the failure.
int write_bytes(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

int sync_file(int fd) { return ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno; }

// The temporary file beside `path`'s target, filled by `fill` (0 or an errno; it may throw, and
// then the temporary is removed and the exception goes on), then renamed over the target.
void write_atomic_with(const fs::path& path, const std::function<int(int)>& fill) {
  const fs::path target = output_target(path);
  const std::string where = shown(path, target);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) {
    fail(path, "cannot create the folder " + target.parent_path().string() + where + ": " +
                   ec.message() + "; check the path (is a file in the way?)");
  }
  const fs::path tmp = target.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const int fd = create_temporary(tmp);
  if (fd < 0) {
    fail(path, "cannot create " + tmp.string() + ": " + errno_text(errno) +
                   "; check the folder is writable");
  }
  int err = 0;
  try {
    err = fill(fd);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (err == 0) err = sync_file(fd);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(path, "cannot write" + where + ": " + errno_text(err) +
                   " (the old file, if any, is unchanged); free space or pick another path");
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot replace the file" + where + ": " + errno_text(err) + "; check permissions");
  }
}

}  // namespace

fs::path output_target(const fs::path& path) {
  fs::path p = path;
  for (int hop = 0;; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return p;  // absent (or unreachable: the write says why)
    if (S_ISREG(st.st_mode)) return p;
    if (!S_ISLNK(st.st_mode)) {
      fail(path, std::string("is ") + kind_of(st.st_mode) + shown(path, p) +
                     ", not a regular file; t3sim replaces its output files whole and will not "
                     "replace that: name a regular file (or a new path)");
    }
    if (hop == kMaxLinkHops) {
      fail(path, "more than " + std::to_string(kMaxLinkHops) +
                     " levels of symbolic links (a loop?); name a regular file");
    }
    std::error_code ec;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) fail(path, "cannot read the symbolic link " + p.string() + ": " + ec.message());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
}

void write_file_atomic(const fs::path& path, std::string_view content) {
  write_atomic_with(path, [&](int fd) { return write_bytes(fd, content); });
}

void write_file_atomic(const fs::path& path, const std::function<bool(std::string&)>& next) {
  write_atomic_with(path, [&](int fd) {
    std::string piece;
    for (bool more = true; more;) {
      piece.clear();
      more = next(piece);
      if (const int err = write_bytes(fd, piece); err != 0) return err;
    }
    return 0;
  });
}

}  // namespace t3sim
