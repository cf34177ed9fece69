//===- KernelMatch.h - Which kernel of one build is which of another ------===//
//
// A kernel is recognized across builds by its name, target, num_warps,
// num_stages, TTGIR signature (the argument types of the kernel function,
// without layouts) and tile shapes (the operand shapes of every tt.dot,
// ttng.warp_group_dot and ttng.tc_gen5_mma), never by cache folder or
// position. A part that one side does not know (no metadata, no .ttgir)
// does not decide. Among compatible kernels, the same compile (Triton's
// hash, which changes with any compiler or option change) is preferred, then
// the same program (the frontend's TTIR, .source, without its locations:
// two autotune candidates that differ only in a constexpr such as GROUP_M
// differ there), then by the same toolchain (PTX version). Two kernels match
// when each is the other's only preferred kernel; when the key leaves several
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
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell::driver {

/// Text kept for the whole run, each distinct text once (thread-safe): the
/// texts of match keys.
llvm::StringRef internKeyText(llvm::StringRef Text);

struct MatchKey {
  // The texts are interned (internKeyText): a key is small to keep and to
  // copy, and they live for the whole run.
  llvm::StringRef Name;
  llvm::StringRef Target; ///< "cuda:100"; "" when unknown
  std::optional<int64_t> NumWarps, NumStages;
  /// "(!tt.ptr<f16>, i32)" from the .ttgir; none without one.
  std::optional<llvm::StringRef> Signature;
  /// "128x64xf16 * 64x128xf16, ..." (sorted, distinct); none without a
  /// .ttgir, "" for a kernel without dots.
  std::optional<llvm::StringRef> Tiles;
  /// The constexpr arguments ("4=1024"), when the metadata has them (a
  /// TritonParse trace). Shown and counted in the distance of leftovers,
  /// not part of exact matching.
  std::optional<llvm::StringRef> Constants;
  /// Triton's compile hash from the metadata ("" when unknown): the same
  /// hash is the same compile. Prefers, never excludes.
  llvm::StringRef Hash;
  /// A digest of the program as the frontend wrote it (.source, else .ttir,
  /// with every location left out, tagged by which): addIdentity().
  /// Prefers, never excludes.
  std::optional<uint64_t> Program;
  /// The PTX ISA version (".version 8.7" -> "8.7"), addIdentity(): of
  /// two builds of one program (Inductor benchmarks autotune candidates
  /// with Triton's ptxas and runs them with CUDA's), the one by the same
  /// toolchain is preferred. "" when unknown.
  llvm::StringRef Toolchain;
  /// Whether addIdentity() has read Program and Toolchain.
  bool IdentityRead = false;

  /// "attn_fwd cuda:100 warps=8 stages=3 (...) tiles ..." for messages.
  std::string str() const;
  /// Equal on every part both keys know.
  bool compatible(const MatchKey &O) const;
  bool operator<(const MatchKey &O) const;
};

/// The key of K; M is its parsed TTGIR, or null (a cheap key).
MatchKey matchKeyOf(const Kernel &K, const TtgirModule *M);

/// What a key takes from the TTGIR of a kernel named Name: the same for
/// every kernel of that name whose .ttgir holds the same bytes.
struct TtgirKeyParts {
  std::string Target;   ///< ttg.target, used when the metadata has none
  int64_t NumWarps = 0; ///< ttg.num-warps, likewise
  std::optional<std::string> Signature;
  std::string Tiles;
};
TtgirKeyParts ttgirKeyParts(const TtgirModule &M, llvm::StringRef Name);
/// Key, a cheap key (matchKeyOf without a TTGIR), with P: then as
/// matchKeyOf with the TTGIR P was taken from.
void addTtgirParts(MatchKey &Key, const TtgirKeyParts &P);

/// Adds K's program digest and toolchain to its key: read (.source, the
/// PTX header) only for the kernels whose cheap keys collide, with their
/// TTGIR.
void addIdentity(MatchKey &Key, const Kernel &K);

/// The digest of a frontend IR text without its locations (`#loc` alias
/// lines and every `loc(...)`), so a kernel built from another checkout or
/// Inductor folder still has the same one.
uint64_t programDigest(llvm::StringRef Text);

/// One part of two keys that both know and that differs.
struct KeyDifference {
  /// "target", "num_warps", "num_stages", "signature", "tiles", "constexprs"
  std::string Field;
  std::string Base, Head;
};

/// The parts that differ between A (base) and B (head), in key order.
std::vector<KeyDifference> keyDifferences(const MatchKey &A, const MatchKey &B);

/// How a pair was found.
enum class MatchHow : uint8_t {
  Exact,    ///< the keys agree, and neither has another preferred candidate
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

/// Keys by pointer: gestell diff matches the keys its summaries hold,
/// without copying them.
Matching matchKernels(llvm::ArrayRef<const MatchKey *> Base,
                      llvm::ArrayRef<const MatchKey *> Head,
                      const MatchOptions &Opts = {});
/// The same for keys held in order (the --baseline matcher, tests).
Matching matchKernels(llvm::ArrayRef<MatchKey> Base,
                      llvm::ArrayRef<MatchKey> Head,
                      const MatchOptions &Opts = {});

} // namespace gestell::driver

#endif
