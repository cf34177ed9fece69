//===- gestell/Layout.h - TritonGPU layouts, their algebra and cost -------===//
//
// A Layout is a TritonGPU encoding attribute read into fields: blocked,
// slice, linear, nvidia_mma (v2, v3), dot_op, swizzled_shared, nvmma_shared,
// shared_linear, tensor_memory_encoding (and _scales), each with its CTA
// layout (Triton 3.6's `CGALayout = [[...]]`) where it has one. Every *distributed* layout maps, for
// a tensor shape, to Triton's linear-layout form (register/lane/warp/block
// bases over dim0..dimN), following Triton 3.6's own definitions, so:
//
//   - equivalence is a question about (layout, shape), never about spelling:
//     the same attribute on 128x64 and on 128x1 is two questions;
//   - the cost of a ttg.convert_layout is decided the way Triton 3.6 lowers
//     it: the minimal conversion dst^-1 . src, quotiented by the block, warp,
//     lane and register dims it leaves alone, says whether data stays in a
//     thread (`registers`), moves within a warp by shuffles (`shuffle`, only
//     when the lane permutation needs at most one register/lane transposition)
//     or goes through shared memory (`shared`);
//   - a register layout is TMEM-compatible with a tensor_memory_encoding when
//     Triton's tcgen05.ld/st lowering can map it to a TMEM message without a
//     conversion (the condition under which Triton folds a convert_layout
//     into ttng.tmem_store).
//
// Canonical text (canonicalText) prints the resolved attribute in one
// normalized spelling, aliases expanded: use it in messages and diffs, never
// the per-file alias names (#blocked3 in one file is #blocked1 in another).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LAYOUT_H
#define GESTELL_LAYOUT_H

#include "gestell/LinearLayout.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace gestell {

/// Module-level facts a layout is checked against (ttg.num-warps, ...).
struct LayoutContext {
  int NumWarps = 4;
  int ThreadsPerWarp = 32;
  int NumCtas = 1;
  /// ttg.maxnreg when set (bounds TMEM message vectorization), else 256.
  int MaxNReg = 256;
  static LayoutContext of(const TtgirModule &M);
};

struct Layout {
  enum class Kind : uint8_t {
    Blocked,
    Slice,
    Linear,
    NvidiaMma,
    DotOperand,
    SwizzledShared,
    NVMMAShared,
    SharedLinear,      ///< #ttg.shared_linear<{offset, block}, alignment = A>
    SharedMemorySpace, ///< #ttg.shared_memory (a memory space, not a layout)
    TensorMemory,      ///< #ttng.tensor_memory_encoding
    TensorMemoryScales,
    Other, ///< an encoding we do not model (AMD, future ones): kept by name
  };
  Kind K = Kind::Other;
  std::string Name; ///< the dialect attribute name ("ttg.blocked")
  using Vec = llvm::SmallVector<unsigned, 4>;

  // blocked
  Vec SizePerThread, ThreadsPerWarp, WarpsPerCTA, Order;
  /// The CTA layout of blocked, nvidia_mma and shared encodings, as Triton
  /// 3.6 prints it (`CGALayout = [[0, 1], [1, 0]]`): one basis per bit of
  /// the CTA id, each the rank-long coordinate, in whole per-CTA tiles, of
  /// the tile CTA 1<<k holds (all zeros: those CTAs hold the same data).
  /// Empty = one CTA. The legacy keys (CTAsPerCGA, CTASplitNum, CTAOrder,
  /// Triton 3.5 and before) are read into the same bases. Slice and dot_op
  /// layouts take their parent's (dot_op with the K component zeroed).
  std::vector<llvm::SmallVector<int32_t, 4>> CgaBases;
  // slice: Dim + Parent; dot_op: OpIdx, KWidth + Parent
  unsigned Dim = 0, OpIdx = 0, KWidth = 0;
  std::shared_ptr<const Layout> Parent;
  // nvidia_mma
  unsigned VersionMajor = 0, VersionMinor = 0;
  Vec InstrShape;
  // linear (register, lane, warp, block); shared_linear (offset, block)
  LinearLayout Linear;
  unsigned Alignment = 0; ///< shared_linear: buffer alignment in bytes
  // swizzled_shared / nvmma_shared
  unsigned Vec_ = 1, PerPhase = 1, MaxPhase = 1;
  unsigned SwizzlingByteWidth = 0, ElementBitWidth = 0;
  bool Transposed = false, Fp4Padded = false;
  unsigned NvmmaRank = 2; ///< nvmma_shared's `rank` (default 2)
  // tensor_memory_encoding
  unsigned BlockM = 0, BlockN = 0, ColStride = 1, CTASplitM = 1, CTASplitN = 1;
  bool TwoCTAs = false; ///< laid out for cta_group::2 (tcgen05 2-CTA MMA)

  /// Register layouts: blocked, slice, linear, nvidia_mma, dot_op.
  bool isDistributed() const;
  bool isShared() const {
    return K == Kind::SwizzledShared || K == Kind::NVMMAShared ||
           K == Kind::SharedLinear;
  }
  /// CTAs the layout spans: 2^(number of CGA bases); for slice and dot_op
  /// the parent's, for linear its block bases.
  unsigned numCtas() const;
  /// Rank of tensors this layout applies to (0 if not known).
  unsigned rank() const;
  /// Normalized, alias-free spelling, e.g.
  /// #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1],
  /// warpsPerCTA = [4, 1], order = [1, 0]}>.
  std::string canonicalText() const;
};

/// Reads an encoding attribute. Unknown encodings give Kind::Other; a known
/// one with a missing or malformed key is an InputError at the attribute's
/// line and column (M locates it in the file; Path names the file).
llvm::Expected<Layout> parseLayout(const Attribute &A, const TtgirModule &M);

/// Reads an encoding from its attribute text alone (e.g. a fixture's
/// "#ttg.blocked<{...}>"; no aliases). Errors name "<layout>" and a column.
llvm::Expected<Layout> parseLayoutText(llvm::StringRef AttributeText);

/// The linear layout of a distributed layout for a tensor shape (register,
/// lane, warp, block -> dim0..), or of a tensor_memory encoding (row, col ->
/// dim0, dim1). Fails for shared layouts, unknown ones, shapes that are not
/// powers of two, and inputs Triton itself would reject.
llvm::Expected<LinearLayout> toLinearLayout(const Layout &L,
                                            llvm::ArrayRef<int64_t> Shape);

/// The canonical text of an encoding attribute: canonicalText() of the
/// parsed layout, or the attribute's alias-free spelling when it is not a
/// layout we model.
std::string canonicalLayoutText(const Attribute &A, const TtgirModule &M);

/// Same linear layout for this shape.
llvm::Expected<bool> areEquivalent(const Layout &A, const Layout &B,
                                   llvm::ArrayRef<int64_t> Shape);

/// What a ttg.convert_layout costs once lowered (Triton 3.6's decision).
enum class ConversionCost : uint8_t {
  Registers, ///< within each thread: a register reordering, or nothing
  Shuffle,   ///< within each warp: warp shuffles (shfl.sync)
  Shared,    ///< through shared memory (st/ld.shared or stmatrix/ldmatrix
             ///< plus barriers), or across CTAs
};
llvm::StringRef costName(ConversionCost C);

struct ConversionAnalysis {
  ConversionCost Cost = ConversionCost::Shared;
  /// The minimal conversion's dims after quotienting what does not move
  /// ("register", "lane", "warp", "block"); empty = the layouts are equal.
  llvm::SmallVector<std::string, 4> MovingDims;
  /// For a lane-only conversion: register/lane transpositions needed (Triton
  /// uses shuffles when there are fewer than 2).
  unsigned MixedTranspositions = 0;
};
llvm::Expected<ConversionAnalysis>
analyzeConversion(const Layout &Src, const Layout &Dst,
                  llvm::ArrayRef<int64_t> Shape);

/// Can a register tensor of this layout, shape and element width be stored
/// to (or loaded from) TMEM of encoding Mem without a layout conversion?
/// Triton 3.6: computeTMemLdStEncodingInfo succeeds (the verifier of
/// ttng.tmem_store/tmem_load and the convert_layout folding both ask this).
/// MemShape is the memdesc's shape (its trailing two dims are used).
llvm::Expected<bool>
isTmemCompatible(const Layout &Reg, llvm::ArrayRef<int64_t> RegShape,
                 unsigned ElementBitWidth, const Layout &Mem,
                 llvm::ArrayRef<int64_t> MemShape, int MaxNReg = 256);

/// Checks what Triton's verifiers check about layouts in a parsed module:
/// each layout's warps, lanes and CTAs against the module attributes, tensor
/// ranks against layout ranks, convert_layout shapes, TMEM encodings, and
/// that ttng.tmem_store/tmem_load register layouts are TMEM-compatible.
/// The first violation is an InputError at the op's line.
llvm::Error verifyLayouts(const TtgirModule &M);

} // namespace gestell

#endif
