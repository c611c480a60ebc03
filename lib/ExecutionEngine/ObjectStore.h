//===- ObjectStore.h - The persistent compiled-object cache -----*- C++ -*-===//
//
// A directory of compiled objects, one file per key, shared by processes:
//   <key>.mlirjit: header (magic, format version, sizes, checksum), key,
//   the engine's metadata, the object.
// Writes go to a temporary file renamed into place, so readers see a whole
// file or none; a file whose header or checksum is wrong is removed and
// counts as a miss. After each store the least recently used entries go until
// the directory holds at most MLIR_JIT_CACHE_MAX_BYTES.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_OBJECTSTORE_H
#define MLIR_EXECUTION_ENGINE_OBJECTSTORE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir_execution_engine {

/// Bump when the file layout, the metadata or the generated code's
/// conventions (wrappers, constructor runners, callback symbols) change.
constexpr uint32_t kObjectStoreFormat = 2;

/// What a key covers besides the module: the format, LLVM's version, the
/// host's triple, CPU and features, the opt level, PIC and each shared
/// library's path, size and modification time, one "name value" per line.
/// `MLIR_JIT_CACHE_TEST_KEY` ("name value" lines) replaces fields, so that
/// tests can stand for another CPU or format.
std::string describeKeyEnvironment(int optLevel, bool enablePIC,
                                   llvm::ArrayRef<llvm::StringRef> libraries);

/// The key (64 hex digits) of `content` (the module, or the caller's own
/// description of it) in `environment`.
std::string objectKey(llvm::StringRef environment, llvm::StringRef content);

struct StoredObject {
  std::string metadata;
  std::unique_ptr<llvm::MemoryBuffer> object;
};

/// The entry for `key`, or none. Removes an entry that is not whole.
std::optional<StoredObject> loadObject(llvm::StringRef directory,
                                       llvm::StringRef key);

/// Removes the entry for `key`, such as one whose object cannot be loaded.
void removeObject(llvm::StringRef directory, llvm::StringRef key);

/// Stores an entry for `key`, then evicts. Returns why it could not, or "".
std::string storeObject(llvm::StringRef directory, llvm::StringRef key,
                        llvm::StringRef metadata, llvm::StringRef object);

/// The bound `MLIR_JIT_CACHE_MAX_BYTES` sets (a decimal number of bytes;
/// unset or blank for the default, 1 GiB), or none if it is invalid, which
/// caches nothing.
std::optional<uint64_t> cacheMaxBytes();

struct ObjectStoreContents {
  int64_t entries;
  uint64_t bytes;
};
/// Why the store's files cannot be read or removed: the errno, and a message
/// naming the file or directory.
struct StoreError {
  int code;
  std::string message;
};
/// The entries of `directory` (none if it does not exist), or none with
/// `error` if it, or an entry, cannot be read.
std::optional<ObjectStoreContents>
describeObjectStore(llvm::StringRef directory, StoreError &error);

/// What clearObjectStore did: the entries it removed, and those it left to
/// the other users who own them.
struct ObjectStoreCleared {
  int64_t removed, spared;
};
/// Removes this user's entries of `directory` (none if it does not exist),
/// and their temporary files writers left an hour ago or more (not those
/// being written); or none with `error` if a file cannot be read or removed.
/// The trust model applies as to the entries a cache reads: a directory one
/// does not use (another user's, or writable by others and not sticky) is
/// refused (EPERM), and other users' files are left alone; unless
/// `allUsers`, which removes every entry of any directory.
std::optional<ObjectStoreCleared>
clearObjectStore(llvm::StringRef directory, bool allUsers, StoreError &error);

/// Counts, for this process.
struct ObjectStoreStatistics {
  int64_t hits, misses, stores, compilations;
};
ObjectStoreStatistics objectStoreStatistics();
/// Counts a compilation to object code (by any engine, cached or not).
void countCompilation();

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_OBJECTSTORE_H
