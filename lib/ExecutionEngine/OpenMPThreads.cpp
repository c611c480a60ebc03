//===- OpenMPThreads.cpp - OMP_NUM_THREADS as LLVM's OpenMP runtime reads it //
//
// What LLVM's OpenMP runtime (libomp.so.5: Debian's libomp5-19, 19.1.7,
// which libomp-22-dev links) makes of OMP_NUM_THREADS, measured in
// processes of their own:
// - unset, or "all" (in any case, alone): one thread a core;
// - a list of decimal numbers separated by commas, one a nesting level,
//   with spaces or tabs around numbers and commas ("2", " 2 , 1 ", "0002");
//   a leading comma stands for one thread a core and an empty item repeats
//   the one before (",2", "2,,3"); 0 is taken as 1, with a warning;
// - anything else it warns of, then aborts the process (SIGABRT: an
//   assertion, "out of heap memory") or reads uninitialized memory as the
//   thread count (a garbage count such as -1423831790 for "+3"): empty or
//   blank values, letters, signs, points, line breaks and other white space
//   ("2\n"), two numbers apart without a comma ("2 3");
// - numbers wrap around at 2^32 ("4294967298" is 2), counts from about
//   2^29 abort its initialization (memory), and counts the system cannot
//   start abort the first parallel region ("unable to allocate necessary
//   resources for OMP thread", SIGABRT: 65536 where pid_max is 32768;
//   32000 started).
// It reads the variable when it starts, at the first parallel region or
// runtime call of the process; a value set later is not read, but for a
// forked child's, which starts again in fork() itself (its fork handler),
// before any code of the child runs.
//
//===----------------------------------------------------------------------===//

#include "OpenMPThreads.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

// Of LLVM's OpenMP runtime, which this library links.
extern "C" int omp_get_max_threads();

using namespace llvm;

namespace mlir_execution_engine {
namespace {

/// Whether the runtime has read the variable in this process (and, then,
/// in a forked child, whose runtime starts again in fork()).
std::atomic<bool> threadsRead{false};

/// Counts from here on are refused alike (beyond any system's pid_max).
constexpr uint64_t kHuge = uint64_t(1) << 40;

std::string shown(StringRef value) {
  std::string text = "OMP_NUM_THREADS='";
  raw_string_ostream os(text);
  os.write_escaped(value, /*UseHexEscapes=*/true);
  return text + "'";
}

/// Reads `value` as the runtime does: "" if it takes it, with the first
/// level's thread count in `first` (0 for one a core) and the largest
/// count in `largest`; else why it does not.
std::string readCounts(StringRef value, uint64_t &first, uint64_t &largest) {
  first = largest = 0;
  if (value.equals_insensitive("all"))
    return "";
  bool any = false, firstRead = false, afterNumber = false;
  for (size_t i = 0; i < value.size();) {
    char c = value[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == ',') {
      firstRead = any = true; // a leading comma: one thread a core
      afterNumber = false;
      ++i;
      continue;
    }
    if (!isDigit(c)) {
      std::string character;
      raw_string_ostream os(character);
      os.write_escaped(value.substr(i, 1), /*UseHexEscapes=*/true);
      return "'" + character +
             "' is neither a digit, a comma, a space nor a tab";
    }
    if (afterNumber)
      return "two numbers are apart without a comma";
    uint64_t count = 0;
    for (; i < value.size() && isDigit(value[i]); ++i)
      count = std::min(count * 10 + uint64_t(value[i] - '0'), kHuge);
    count = std::max<uint64_t>(count, 1); // 0 is taken as 1
    if (!firstRead)
      first = count;
    largest = std::max(largest, count);
    firstRead = any = afterNumber = true;
  }
  if (!any)
    return value.empty() ? "it is empty" : "it holds only spaces or tabs";
  return "";
}

/// A number a file of /proc holds, or none.
std::optional<uint64_t> readNumber(const char *path) {
  FILE *file = std::fopen(path, "re");
  if (!file)
    return std::nullopt;
  unsigned long long number;
  bool read = std::fscanf(file, "%llu", &number) == 1;
  std::fclose(file);
  return read ? std::optional<uint64_t>(number) : std::nullopt;
}

/// The most threads the system lets this process run, and what says so.
uint64_t threadLimit(std::string &source) {
  uint64_t limit = kHuge;
  auto lower = [&](std::optional<uint64_t> bound, const char *what) {
    if (bound && *bound < limit) {
      limit = *bound;
      source = what;
    }
  };
  lower(readNumber("/proc/sys/kernel/threads-max"),
        "/proc/sys/kernel/threads-max");
  lower(readNumber("/proc/sys/kernel/pid_max"), "/proc/sys/kernel/pid_max");
  struct rlimit processes;
  // Root is not held to RLIMIT_NPROC.
  if (::geteuid() != 0 && ::getrlimit(RLIMIT_NPROC, &processes) == 0 &&
      processes.rlim_cur != RLIM_INFINITY)
    lower(uint64_t(processes.rlim_cur), "ulimit -u (RLIMIT_NPROC)");
  return limit;
}

/// The cores this process may run on: the runtime's default count.
uint64_t cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    return std::max(CPU_COUNT(&set), 1);
  return std::max<long>(::sysconf(_SC_NPROCESSORS_ONLN), 1);
}

/// The stack the runtime gives each thread it starts: KMP_STACKSIZE or
/// OMP_STACKSIZE (a number, kilobytes unless a B, K, M, G or T follows; the
/// larger if both are set, as the runtime takes one), else its default,
/// 4 MiB. A value it cannot read (it warns and takes the default) counts as
/// the default. `source` is the variable and value taken, or empty.
size_t runtimeStackSize(std::string &source) {
  size_t size = size_t(4) << 20;
  source.clear();
  for (const char *name : {"KMP_STACKSIZE", "OMP_STACKSIZE"}) {
    const char *value = std::getenv(name);
    if (!value)
      continue;
    StringRef text = StringRef(value).trim(" \t");
    size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
    unsigned long long number;
    if (digits == 0 || text.take_front(digits).getAsInteger(10, number))
      continue;
    std::string unit = text.drop_front(digits).trim(" \t").lower();
    if (unit.size() == 2 && unit[1] == 'b') // "kb" as "k"
      unit.pop_back();
    size_t index = unit.empty() ? 1 : StringRef("bkmgt").find(unit);
    if (unit.size() > 1 || index == StringRef::npos ||
        number > (SIZE_MAX >> (10 * index)))
      continue;
    size_t asked = std::max(size_t(number) << (10 * index), size_t(64) << 10);
    if (source.empty() || asked > size) {
      size = asked;
      source = std::string(name) + "=" + value;
    }
  }
  return size;
}

/// How many of `count` more threads this process can start now, all at
/// once, as the runtime starts its team, each with a stack of `stackSize`
/// bytes (what fails is the system's limit on threads, processes or memory).
uint64_t startableThreads(uint64_t count, size_t stackSize) {
  struct Gate {
    std::mutex mutex;
    std::condition_variable opened;
    bool open = false;
  } gate;
  auto wait = [](void *arg) -> void * {
    auto *gate = static_cast<Gate *>(arg);
    std::unique_lock<std::mutex> lock(gate->mutex);
    gate->opened.wait(lock, [&] { return gate->open; });
    return nullptr;
  };
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stackSize);
  std::vector<pthread_t> threads;
  threads.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    pthread_t thread;
    if (pthread_create(&thread, &attributes, wait, &gate) != 0)
      break;
    threads.push_back(thread);
  }
  pthread_attr_destroy(&attributes);
  {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.open = true;
  }
  gate.opened.notify_all();
  for (pthread_t thread : threads)
    pthread_join(thread, nullptr);
  return threads.size();
}

std::string tooManyThreads(StringRef value, uint64_t count,
                           const std::string &why) {
  return shown(value) + " asks for " + std::to_string(count) + " threads, " +
         why +
         ": LLVM's OpenMP runtime would abort the process when it failed to "
         "start them, at the first parallel loop; set it to fewer threads, or "
         "unset it for one a core";
}

/// Why the runtime cannot read `value` (unset if null) when it
/// initializes, or "": what it cannot parse, and counts no system runs.
/// `first` is the count of the first level (0: one a core).
std::string whyUnreadable(const char *variable, uint64_t &first) {
  first = 0;
  if (!variable)
    return "";
  StringRef value(variable);
  uint64_t largest;
  std::string why = readCounts(value, first, largest);
  if (!why.empty())
    return shown(value) +
           " is not a thread count LLVM's OpenMP runtime reads (" + why +
           "): it would abort the process when it reads it, at the first "
           "parallel loop (FAST_PIPELINE's, or the omp dialect's); set it to "
           "a number of threads, such as 2, or unset it for one a core";
  std::string source;
  uint64_t limit = threadLimit(source);
  if (largest > limit)
    return tooManyThreads(value, largest,
                          "more than this system runs (at most " +
                              std::to_string(limit) + ": " + source + ")");
  return "";
}

/// The variable as the runtime read it (none: unset), and while a fork is
/// under way, the value it had if it is replaced by that one.
std::optional<std::string> valueRead;
std::optional<std::string> valueReplaced;

std::optional<std::string> currentValue() {
  const char *variable = std::getenv("OMP_NUM_THREADS");
  return variable ? std::optional<std::string>(variable) : std::nullopt;
}

void setValue(const std::optional<std::string> &value) {
  if (value)
    ::setenv("OMP_NUM_THREADS", value->c_str(), /*overwrite=*/1);
  else
    ::unsetenv("OMP_NUM_THREADS");
}

/// Around fork(), once the runtime has read the variable: its handler in
/// the child starts it again, reading the variable then, in fork() (before
/// any code of the child can check it). A value it cannot read, set since,
/// is replaced during the fork by the one it read, and restored after; a
/// value it can read is the child's. Registered after the runtime's own
/// handlers (which it registers when it starts): this one prepares before
/// them, and restores after the child's reads it.
void prepareFork() {
  std::optional<std::string> now = currentValue();
  uint64_t first;
  if (now == valueRead ||
      whyUnreadable(now ? now->c_str() : nullptr, first).empty())
    return;
  valueReplaced = std::move(now);
  setValue(valueRead);
}
void afterForkInParent() {
  if (valueReplaced)
    setValue(*valueReplaced);
  valueReplaced.reset();
}
void afterForkInChild() {
  valueRead = currentValue(); // what the child's runtime read
  afterForkInParent();
}

} // namespace

bool checkOpenMPThreads(bool read, std::string &error) {
  if (threadsRead.load(std::memory_order_acquire))
    return true;
  const char *variable = std::getenv("OMP_NUM_THREADS");
  uint64_t first;
  error = whyUnreadable(variable, first);
  if (!error.empty())
    return false;
  // More than one a core, or stacks of a size asked for: the system may
  // refuse them now.
  std::string stackSource;
  size_t stackSize = runtimeStackSize(stackSource);
  if (first > cores() || !stackSource.empty()) {
    uint64_t started = startableThreads(first - 1, stackSize);
    if (started < first - 1) {
      error = tooManyThreads(
          variable, first,
          "and this process can start only " + std::to_string(started) +
              " more now, each with the runtime's stack of " +
              std::to_string(stackSize) + " bytes (" +
              (stackSource.empty() ? "its default" : stackSource) +
              "): the system's limits on threads, processes or memory");
      return false;
    }
  }
  if (read) {
    // Once a process (a forked child inherits it): concurrent first calls
    // wait for the one that has the runtime read it.
    static std::once_flag once;
    std::call_once(once, [] {
      valueRead = currentValue();
      (void)omp_get_max_threads(); // the runtime starts: it reads it now
      pthread_atfork(prepareFork, afterForkInParent, afterForkInChild);
      threadsRead.store(true, std::memory_order_release);
    });
  }
  return true;
}

} // namespace mlir_execution_engine
