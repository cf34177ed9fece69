//===- KernelMatch.h - Which kernel of one build is which of another ------===//
//
// A kernel is recognized across builds by its name, target, num_warps,
// num_stages, TTGIR signature (the argument types of the kernel function,
// without layouts) and tile shapes (the operand shapes of every tt.dot,
// ttng.warp_group_dot and ttng.tc_gen5_mma), never by cache folder (it
// changes with any compiler change) or position. A part that one side does
// not know (no metadata, no .ttgir) does not decide. Two kernels match when
// each is the other's only compatible kernel; when the key leaves several
// candidates (an autotune sweep seen without its TTGIR, two copies of one
// build) the kernels are reported as ambiguous rather than guessed.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_KERNELMATCH_H
#define GESTELL_DRIVER_KERNELMATCH_H

#include "gestell/Bundle.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gestell::driver {

struct MatchKey {
  std::string Name;
  std::string Target; ///< "cuda:100"; "" when unknown
  std::optional<int64_t> NumWarps, NumStages;
  /// "(!tt.ptr<f16>, i32)" from the .ttgir; none without one.
  std::optional<std::string> Signature;
  /// "128x64xf16 * 64x128xf16, ..." (sorted, distinct); none without a
  /// .ttgir, "" for a kernel without dots.
  std::optional<std::string> Tiles;

  /// "attn_fwd cuda:100 warps=8 stages=3 (...) tiles ..." for messages.
  std::string str() const;
  /// Equal on every part both keys know.
  bool compatible(const MatchKey &O) const;
  bool operator<(const MatchKey &O) const;
};

/// The key of K; M is its parsed TTGIR, or null.
MatchKey matchKeyOf(const Kernel &K, const TtgirModule *M);

struct Matching {
  /// Per kernel of each side: the compatible kernels of the other side.
  std::vector<std::vector<unsigned>> BaseCandidates, HeadCandidates;
  /// Per kernel of each side: its match, when it is unique both ways.
  std::vector<std::optional<unsigned>> BaseMatch, HeadMatch;
};

Matching matchKernels(llvm::ArrayRef<MatchKey> Base,
                      llvm::ArrayRef<MatchKey> Head);

} // namespace gestell::driver

#endif
