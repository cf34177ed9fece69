//===- SameTtgir.h - Kernels whose .ttgir holds the same bytes ------------===//
//
// An autotuned Triton cache compiles one kernel in many configs, and configs
// that reach the IR alike (num_stages where the loop is not pipelined) leave
// byte-identical .ttgir files (and mostly PTX and cubins too). check and
// stats run each such group one kernel after the other, each offered the
// previous one's parses (KernelView::offerParses): the TTGIR is parsed and
// its conversions analysed once per distinct text.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_SAMETTGIR_H
#define GESTELL_DRIVER_SAMETTGIR_H

#include "gestell/Bundle.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/ThreadPool.h"

#include <cstddef>
#include <vector>

namespace gestell::driver {

/// The most kernels of one group: a group runs on one thread, and each of
/// its kernels but the first parses no TTGIR, so 16 keep a sixteenth of
/// the parses and still spread a cache of one kernel's configs over
/// every core.
constexpr size_t MaxGroupSize = 16;

/// Kernels[Begin, End) by the bytes of their .ttgir: Order lists their
/// indices group after group, each group in the order of its first kernel
/// and its kernels in order; group G is Order[Starts[G], Starts[G + 1]), at
/// most MaxGroupSize kernels (a larger set of one text is several groups).
/// Files are told apart by size, and those of one size by the XXH3 of
/// their text (read on Pool's threads); a kernel of a trace, without a
/// .ttgir, or whose file cannot be read is a group of its own.
struct TtgirGroups {
  std::vector<size_t> Order;
  std::vector<size_t> Starts;
  size_t size() const { return Starts.size() - 1; }
  llvm::ArrayRef<size_t> group(size_t G) const {
    return llvm::ArrayRef(Order).slice(Starts[G], Starts[G + 1] - Starts[G]);
  }
};
/// Calls Fn(I, View) for each kernel I of Group in order, each on a new
/// view of it offered the previous kernel's view (KernelView::offerParses).
/// A view goes once the next kernel's Fn has returned: Fn keeps nothing of
/// it.
void viewGroup(llvm::ArrayRef<size_t> Group,
               llvm::ArrayRef<const Kernel *> Kernels,
               const AnalysisOptions &Opts,
               llvm::function_ref<void(size_t, KernelView &)> Fn);

TtgirGroups groupBySameTtgir(llvm::ArrayRef<const Kernel *> Kernels,
                             size_t Begin, size_t End,
                             llvm::ThreadPoolInterface &Pool);

} // namespace gestell::driver

#endif
