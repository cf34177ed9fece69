//===- ForEachIndex.h - Items of a list on a thread pool, no task each ----===//
//
// Runs Fn(I) for every index I of a range on a pool's threads: one task per
// thread, each taking the next index until none is left. A task per item
// woke a thread per item (a futex call each, costly on a VM), and the
// pool's queue held every item's closure.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_FOREACHINDEX_H
#define GESTELL_DRIVER_FOREACHINDEX_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace gestell::driver {

/// Calls Fn(I) for I in [Begin, End) on Pool's threads, then waits for the
/// pool. Fn must be safe to call for different indices at once; which
/// thread takes which index is not fixed, so results go by index.
inline void forEachIndex(llvm::ThreadPoolInterface &Pool, size_t Begin,
                         size_t End, llvm::function_ref<void(size_t)> Fn) {
  std::atomic<size_t> Next{Begin};
  size_t Tasks =
      std::min<size_t>(Pool.getMaxConcurrency(), End > Begin ? End - Begin : 0);
  for (size_t T = 0; T < Tasks; ++T)
    Pool.async([&] {
      for (size_t I; (I = Next++) < End;)
        Fn(I);
    });
  Pool.wait();
}

} // namespace gestell::driver

#endif
