//===- ObjectStore.cpp - The persistent compiled-object cache -------------===//

#include "ObjectStore.h"
#include "OrcEngine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace mlir_execution_engine {
namespace {

constexpr char kMagic[8] = {'M', 'L', 'I', 'R', 'J', 'I', 'T', '\0'};
constexpr const char *kSuffix = ".mlirjit";
constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;
/// A temporary file older than this was left by a writer that died.
constexpr auto kStaleTemporary = std::chrono::hours(1);

/// magic, format, key size, metadata size, object size, checksum of the
/// rest of the file.
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 8 + 8;

std::atomic<int64_t> hits{0}, misses{0}, stores{0}, compilations{0};

std::string entryPath(StringRef directory, StringRef key) {
  SmallString<256> path(directory);
  sys::path::append(path, key + kSuffix);
  return std::string(path);
}

/// Replaces the "name value" lines of `description` named in `overrides`.
std::string applyOverrides(StringRef description, StringRef overrides) {
  StringMap<std::string> replaced;
  SmallVector<StringRef> lines;
  overrides.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    replaced[line.split(' ').first] = line.str();
  std::string result;
  lines.clear();
  description.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    auto found = replaced.find(line.split(' ').first);
    result += (found == replaced.end() ? line.str() : found->second) + "\n";
  }
  return result;
}

/// Whether `name` is an entry's (`<64 hex digits>.mlirjit`), or with
/// `temporary`, a writer's temporary file for one (`...mlirjit.tmp-<12>`):
/// the only files eviction touches, in a directory that may hold others.
bool isStoreFile(StringRef name, bool temporary) {
  StringRef hex = name.take_front(64);
  name = name.drop_front(hex.size());
  // Keys are lower-case hex (objectKey): other names are not entries.
  auto isKeyDigit = [](char c) { return isDigit(c) || (c >= 'a' && c <= 'f'); };
  if (hex.size() != 64 || !all_of(hex, isKeyDigit) ||
      !name.consume_front(kSuffix))
    return false;
  return temporary ? name.consume_front(".tmp-") && name.size() == 12 &&
                         all_of(name, isAlnum)
                   : name.empty();
}

uint64_t maxBytes(std::string &error) {
  std::optional<std::string> text =
      sys::Process::GetEnv("MLIR_JIT_CACHE_MAX_BYTES");
  if (!text || StringRef(*text).trim().empty())
    return kDefaultMaxBytes;
  uint64_t value = kDefaultMaxBytes;
  if (StringRef(*text).trim().getAsInteger(10, value))
    error = "MLIR_JIT_CACHE_MAX_BYTES is '" + *text +
            "', not a number of bytes: nothing is cached until it is one";
  return value;
}

/// An entry, or a writer's temporary file for one.
struct StoreFile {
  std::string path;
  sys::TimePoint<> modified;
  uint64_t size;
  bool temporary;
};

/// The entries and writers' temporary files of `directory` (regular files;
/// symbolic links are not followed): none if it does not exist. On failure,
/// `failedPath` is the directory or the entry that could not be read.
std::error_code listStoreFiles(StringRef directory,
                               std::vector<StoreFile> &files,
                               std::string &failedPath) {
  std::error_code ec;
  sys::fs::directory_iterator it(directory, ec, /*follow_symlinks=*/false);
  if (ec == std::errc::no_such_file_or_directory)
    return {};
  failedPath = directory.str();
  for (sys::fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    bool temporary = isStoreFile(name, /*temporary=*/true);
    if (!temporary && !isStoreFile(name, /*temporary=*/false))
      continue;
    sys::fs::file_status status;
    if (std::error_code statEc =
            sys::fs::status(it->path(), status, /*follow=*/false)) {
      if (statEc == std::errc::no_such_file_or_directory)
        continue; // another process evicted it
      failedPath = it->path();
      return statEc;
    }
    if (status.type() == sys::fs::file_type::regular_file)
      files.push_back({it->path(), status.getLastModificationTime(),
                       status.getSize(), temporary});
  }
  return ec;
}

bool isStale(const StoreFile &file) {
  return std::chrono::system_clock::now() - file.modified > kStaleTemporary;
}

/// Removes the least recently used entries (by modification time, which a
/// hit renews) until the directory holds at most `limit` bytes, keeping
/// `newest`; and temporary files writers left behind.
void evict(StringRef directory, StringRef newest, uint64_t limit) {
  std::vector<StoreFile> entries;
  std::string unreadable;
  (void)listStoreFiles(directory, entries, unreadable);
  uint64_t total = 0;
  for (const StoreFile &file : entries) {
    if (file.temporary && isStale(file))
      sys::fs::remove(file.path);
    total += file.temporary ? 0 : file.size;
  }
  llvm::erase_if(entries, [](const StoreFile &file) { return file.temporary; });
  std::sort(entries.begin(), entries.end(),
            [](const StoreFile &a, const StoreFile &b) {
              return a.modified < b.modified;
            });
  for (const StoreFile &entry : entries) {
    if (total <= limit)
      break;
    if (sys::path::filename(entry.path) == (newest + kSuffix).str())
      continue;
    if (!sys::fs::remove(entry.path))
      total -= entry.size;
  }
}

/// listStoreFiles for a caller that reports what cannot be read and why.
bool readStoreFiles(StringRef directory, std::vector<StoreFile> &files,
                    StoreError &error) {
  // The file system would read the path up to the NUL: another directory.
  if (directory.contains('\0')) {
    error = {EINVAL, "the cache directory contains a NUL character"};
    return false;
  }
  std::string path;
  if (std::error_code ec = listStoreFiles(directory, files, path)) {
    error = {ec.value(),
             "cannot read " +
                 std::string(path == directory ? "the cache directory"
                                               : "the cache entry") +
                 " '" + path + "': " + ec.message()};
    return false;
  }
  return true;
}

/// Why the directory `fd` may hold code another user wrote, or "". The
/// trust model: an entry is code this process will run, so only this user
/// may write it. The directory is this user's, writable by no one else or
/// sticky; or root's and sticky (as /tmp), where no one else can remove or
/// replace this user's files. Each entry is checked to be this user's own.
/// With `clearing`, the message says why the directory is not this user's
/// to clear, else what to do to use it.
std::string untrustedDirectory(int fd, StringRef directory,
                               bool clearing = false) {
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return "cannot examine the cache directory '" + directory.str() +
           "': " + std::strerror(errno);
  // A sticky directory's owner can still remove or rename others' files.
  if ((status.st_mode & S_ISVTX) &&
      (status.st_uid == 0 || status.st_uid == ::geteuid()))
    return "";
  const char *notClearing = ": no cache uses it (they could put code in it), "
                            "so its entries are not this user's to clear";
  std::string described = "the cache directory '" + directory.str() + "'";
  if (status.st_uid != ::geteuid()) {
    described +=
        " belongs to another user (uid " + std::to_string(status.st_uid) + ")";
    return described + (clearing ? notClearing
                                 : ", who could put code in it that this "
                                   "process would run; use a directory of "
                                   "your own");
  }
  if (status.st_mode & (S_IWGRP | S_IWOTH))
    return described +
           (clearing ? std::string(" is writable by other users and not "
                                   "sticky") +
                           notClearing
                     : std::string(" is writable by other users, who could "
                                   "put code in it that this process would "
                                   "run; remove their write permission "
                                   "(chmod go-w) or make it sticky (chmod "
                                   "+t)"));
  return "";
}

/// The entry file `name` in the directory `directoryFd`, open for reading
/// if it is a regular file (not a FIFO, whose reading would wait for a
/// writer; not a symbolic link) of this user's that no one else can write;
/// else -1.
int openOwnEntry(int directoryFd, StringRef name) {
  int fd = ::openat(directoryFd, name.str().c_str(),
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) ||
      status.st_uid != ::geteuid() || (status.st_mode & (S_IWGRP | S_IWOTH))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// The entry open as `fd`, read whole into `buffer`; what was read, or none
/// if it cannot be read. Read with read(), never mapped (as
/// MemoryBuffer::getOpenFile maps large files): a file another process
/// truncates meanwhile is read short, and fails its header or checksum,
/// where a mapping's missing pages would kill this process (SIGBUS).
std::optional<StringRef>
readEntry(int fd, StringRef path,
          std::unique_ptr<WritableMemoryBuffer> &buffer) {
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return std::nullopt;
  buffer = WritableMemoryBuffer::getNewUninitMemBuffer(
      static_cast<size_t>(status.st_size), path);
  if (!buffer)
    return std::nullopt;
  size_t size = buffer->getBufferSize(), done = 0;
  while (done < size) {
    ssize_t count = ::read(fd, buffer->getBufferStart() + done, size - done);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return std::nullopt;
    if (count == 0)
      break; // truncated meanwhile
    done += static_cast<size_t>(count);
  }
  return StringRef(buffer->getBufferStart(), done);
}

/// The directory, open (following symbolic links), or -1.
int openDirectory(StringRef directory) {
  return ::open(directory.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

} // namespace

std::string describeKeyEnvironment(int optLevel, bool enablePIC,
                                   ArrayRef<StringRef> libraries) {
  // Built with std::string: a new process's first engine pages in less of
  // LLVM than with raw_ostream.
  static const std::string host = [] {
    const HostTarget &target = hostTarget();
    std::string text = "llvm " LLVM_VERSION_STRING "\ntriple " + target.triple +
                       "\ncpu " + target.cpu + "\nfeatures";
    for (const std::string &feature : target.features)
      text += " " + feature;
    return text + "\n";
  }();
  std::string description = "format " + std::to_string(kObjectStoreFormat) +
                            "\n" + host + "opt " + std::to_string(optLevel) +
                            "\npic " + std::to_string(enablePIC) + "\n";
  raw_string_ostream os(description);
  for (size_t i = 0; i < libraries.size(); ++i) {
    SmallString<256> real;
    sys::fs::file_status status;
    if (sys::fs::real_path(libraries[i], real) || sys::fs::status(real, status))
      real = libraries[i];
    // The path's length first: a path may hold a line break.
    os << "library" << i << " " << real.size() << ":" << real << " "
       << status.getSize() << " "
       << status.getLastModificationTime().time_since_epoch().count() << "\n";
  }
  if (std::optional<std::string> overrides =
          sys::Process::GetEnv("MLIR_JIT_CACHE_TEST_KEY"))
    return applyOverrides(description, *overrides);
  return description;
}

std::string objectKey(StringRef environment, StringRef content) {
  SHA256 hash;
  hash.update(environment);
  hash.update(StringRef("\0", 1));
  hash.update(content);
  return toHex(hash.final(), /*LowerCase=*/true);
}

std::optional<StoredObject> loadObject(StringRef directory, StringRef key) {
  std::string path = entryPath(directory, key);
  int directoryFd = openDirectory(directory);
  int fd = -1;
  if (directoryFd >= 0) {
    if (untrustedDirectory(directoryFd, directory).empty())
      fd = openOwnEntry(directoryFd, sys::path::filename(path));
    ::close(directoryFd);
  }
  if (fd < 0) {
    ++misses;
    return std::nullopt;
  }
  auto closeEntry = make_scope_exit([fd] { ::close(fd); });
  std::unique_ptr<WritableMemoryBuffer> file;
  std::optional<StringRef> read = readEntry(fd, path, file);
  if (!read) {
    ++misses;
    return std::nullopt;
  }
  StringRef data = *read;
  auto reject = [&]() -> std::optional<StoredObject> {
    // Truncated, corrupted or foreign: a new store replaces it.
    sys::fs::remove(path);
    ++misses;
    return std::nullopt;
  };
  if (data.size() < kHeaderSize || std::memcmp(data.data(), kMagic, 8) != 0)
    return reject();
  const char *header = data.data() + 8;
  uint32_t format = support::endian::read32le(header);
  uint64_t keySize = support::endian::read32le(header + 4);
  uint64_t metadataSize = support::endian::read64le(header + 8);
  uint64_t objectSize = support::endian::read64le(header + 16);
  uint64_t checksum = support::endian::read64le(header + 24);
  StringRef rest = data.drop_front(kHeaderSize);
  if (format != kObjectStoreFormat || keySize != key.size() ||
      metadataSize > rest.size() || objectSize > rest.size() ||
      keySize + metadataSize + objectSize != rest.size() ||
      xxh3_64bits(rest) != checksum || !rest.starts_with(key))
    return reject();
  StoredObject stored;
  stored.metadata = rest.substr(keySize, metadataSize).str();
  // A buffer of its own: object files are parsed in place and need their
  // alignment.
  StringRef object = rest.substr(keySize + metadataSize);
  auto copy = WritableMemoryBuffer::getNewUninitMemBuffer(object.size(), key);
  std::memcpy(copy->getBufferStart(), object.data(), object.size());
  stored.object = std::move(copy);
  // A hit makes the entry the most recently used.
  ::futimens(fd, nullptr);
  ++hits;
  return stored;
}

void removeObject(StringRef directory, StringRef key) {
  sys::fs::remove(entryPath(directory, key));
}

std::string storeObject(StringRef directory, StringRef key, StringRef metadata,
                        StringRef object) {
  std::string error;
  uint64_t limit = maxBytes(error);
  if (!error.empty())
    return error;
  // Made readable and writable by this user only.
  if (std::error_code ec = sys::fs::create_directories(
          directory, /*IgnoreExisting=*/true, sys::fs::owner_all))
    return "cannot create the cache directory '" + directory.str() +
           "': " + ec.message();
  int directoryFd = openDirectory(directory);
  if (directoryFd < 0)
    return "cannot open the cache directory '" + directory.str() +
           "': " + std::strerror(errno);
  std::string untrusted = untrustedDirectory(directoryFd, directory);
  ::close(directoryFd);
  if (!untrusted.empty())
    return untrusted;
  std::string rest = key.str() + metadata.str() + object.str();
  char header[kHeaderSize];
  std::memcpy(header, kMagic, 8);
  support::endian::write32le(header + 8, kObjectStoreFormat);
  support::endian::write32le(header + 12, key.size());
  support::endian::write64le(header + 16, metadata.size());
  support::endian::write64le(header + 24, object.size());
  support::endian::write64le(header + 32, xxh3_64bits(rest));

  SmallString<256> model(entryPath(directory, key));
  model += ".tmp-%%%%%%%%%%%%";
  int fd;
  SmallString<256> temporary;
  // Writable by this user only, whatever the umask: entries are trusted
  // only then.
  if (std::error_code ec =
          sys::fs::createUniqueFile(model, fd, temporary, sys::fs::OF_None,
                                    sys::fs::owner_read | sys::fs::owner_write))
    return "cannot write to the cache directory '" + directory.str() +
           "': " + ec.message();
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(header, kHeaderSize);
    os << rest;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      sys::fs::remove(temporary);
      return "cannot write to the cache directory '" + directory.str() +
             "': " + message;
    }
  }
  if (std::error_code ec =
          sys::fs::rename(temporary, entryPath(directory, key))) {
    sys::fs::remove(temporary);
    return "cannot write to the cache directory '" + directory.str() +
           "': " + ec.message();
  }
  ++stores;
  evict(directory, key, limit);
  return "";
}

ObjectStoreStatistics objectStoreStatistics() {
  return {hits.load(), misses.load(), stores.load(), compilations.load()};
}

void countCompilation() { ++compilations; }

std::optional<uint64_t> cacheMaxBytes() {
  std::string error;
  uint64_t limit = maxBytes(error);
  return error.empty() ? std::optional<uint64_t>(limit) : std::nullopt;
}

std::optional<ObjectStoreContents> describeObjectStore(StringRef directory,
                                                       StoreError &error) {
  std::vector<StoreFile> files;
  if (!readStoreFiles(directory, files, error))
    return std::nullopt;
  ObjectStoreContents contents{0, 0};
  for (const StoreFile &file : files) {
    if (file.temporary)
      continue;
    ++contents.entries;
    contents.bytes += file.size;
  }
  return contents;
}

std::optional<ObjectStoreCleared>
clearObjectStore(StringRef directory, bool allUsers, StoreError &error) {
  // The file system would read the path up to the NUL: another directory.
  if (directory.contains('\0')) {
    error = {EINVAL, "the cache directory contains a NUL character"};
    return std::nullopt;
  }
  // errno, then the message (building it may change errno).
  auto fail = [&](const char *what, StringRef path) {
    int code = errno;
    error = {code, std::string(what) + " '" + path.str() +
                       "': " + std::strerror(code)};
    return std::nullopt;
  };
  // Every file is examined and removed relative to the directory examined
  // (a path could lead elsewhere meanwhile).
  int directoryFd = openDirectory(directory);
  if (directoryFd < 0) {
    if (errno == ENOENT)
      return ObjectStoreCleared{0, 0};
    return fail("cannot read the cache directory", directory);
  }
  DIR *listing = ::fdopendir(directoryFd);
  if (!listing) {
    int code = errno;
    ::close(directoryFd);
    errno = code;
    return fail("cannot read the cache directory", directory);
  }
  scope_exit closeListing([listing] { ::closedir(listing); });
  if (!allUsers) {
    std::string untrusted =
        untrustedDirectory(directoryFd, directory, /*clearing=*/true);
    if (!untrusted.empty()) {
      error = {EPERM, untrusted};
      return std::nullopt;
    }
  }
  ObjectStoreCleared cleared{0, 0};
  auto now = std::chrono::system_clock::now();
  for (errno = 0; dirent *file = ::readdir(listing); errno = 0) {
    StringRef name = file->d_name;
    bool temporary = isStoreFile(name, /*temporary=*/true);
    if (!temporary && !isStoreFile(name, /*temporary=*/false))
      continue;
    SmallString<256> path(directory);
    sys::path::append(path, name);
    struct stat status;
    if (::fstatat(directoryFd, file->d_name, &status, AT_SYMLINK_NOFOLLOW)) {
      if (errno == ENOENT)
        continue; // another process evicted it
      return fail("cannot read the cache entry", path);
    }
    if (!S_ISREG(status.st_mode))
      continue;
    if (!allUsers && status.st_uid != ::geteuid()) {
      cleared.spared += !temporary;
      continue;
    }
    auto modified = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds(status.st_mtim.tv_sec) +
            std::chrono::nanoseconds(status.st_mtim.tv_nsec)));
    if (temporary && now - modified <= kStaleTemporary)
      continue; // being written
    if (::unlinkat(directoryFd, file->d_name, 0) != 0) {
      if (errno == ENOENT)
        continue; // another process evicted it
      return fail("cannot remove", path);
    }
    cleared.removed += !temporary;
  }
  if (errno != 0)
    return fail("cannot read the cache directory", directory);
  return cleared;
}

} // namespace mlir_execution_engine
