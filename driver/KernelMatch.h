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
// gestell diff goes on (MatchOptions::PairLeftovers): the kernels of one
// name left over are paired closest first, by how many parts of their keys
// differ (target, warps, stages, signature, tiles), so two autotune
// variants, or the sm_90 and sm_100 builds of one kernel, are compared
// side by side with what differs in their configuration; a kernel whose
// closest kernels are tied stays ambiguous. --pair names pairs outright.
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
#include <utility>
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
  /// The constexpr arguments ("4=1024"), when the metadata has them (a
  /// TritonParse trace). Shown and counted in the distance of leftovers,
  /// not part of exact matching.
  std::optional<std::string> Constants;

  /// "attn_fwd cuda:100 warps=8 stages=3 (...) tiles ..." for messages.
  std::string str() const;
  /// Equal on every part both keys know.
  bool compatible(const MatchKey &O) const;
  bool operator<(const MatchKey &O) const;
};

/// The key of K; M is its parsed TTGIR, or null.
MatchKey matchKeyOf(const Kernel &K, const TtgirModule *M);

/// One part of two keys that both know and that differs.
struct KeyDifference {
  /// "target", "num_warps", "num_stages", "signature", "tiles", "constexprs"
  std::string Field;
  std::string Base, Head;
};

/// The parts that differ between A (base) and B (head), in key order.
std::vector<KeyDifference> keyDifferences(const MatchKey &A,
                                          const MatchKey &B);

/// How a pair was found.
enum class MatchHow : uint8_t {
  Exact,    ///< the keys agree, and neither has another candidate
  Closest,  ///< a leftover of the name, closest first (PairLeftovers)
  Explicit, ///< named by MatchOptions::Forced (--pair)
};
llvm::StringRef matchHowName(MatchHow H); ///< "exact", "closest", "explicit"

struct MatchOptions {
  /// After exact matching, pair the kernels of one name left over, closest
  /// first; equal-distance ties stay ambiguous.
  bool PairLeftovers = false;
  /// (base, head) index pairs that match whatever their keys say.
  std::vector<std::pair<unsigned, unsigned>> Forced;
};

struct Matching {
  /// Per kernel of each side: the compatible kernels of the other side.
  std::vector<std::vector<unsigned>> BaseCandidates, HeadCandidates;
  /// Per kernel of each side: its match, when it is unique both ways.
  std::vector<std::optional<unsigned>> BaseMatch, HeadMatch;
  /// Per head kernel with a match: how it was found.
  std::vector<MatchHow> HeadHow;
};

Matching matchKernels(llvm::ArrayRef<MatchKey> Base,
                      llvm::ArrayRef<MatchKey> Head,
                      const MatchOptions &Opts = {});

} // namespace gestell::driver

#endif
