//===- gestell/LinearLayout.h - Triton's linear layouts over GF(2) --------===//
//
// A linear layout maps hardware indices (input dims: register, lane, warp,
// block for a register layout; row, col for tensor memory; offset for shared
// memory) to tensor coordinates (output dims dim0, dim1, ...). Each input
// dim is a list of bases, one per bit of the index: input value x maps to the
// XOR of the bases of its set bits. A zero basis means broadcast (that bit
// selects a copy of the same element). Every Triton layout of 3.6 maps to
// this form, so two layouts are equivalent exactly when their linear layouts
// are equal, and a conversion's data movement is read off the composition
// dst^-1 . src.
//
// This is our own implementation of the semantics of Triton's
// include/triton/Tools/LinearLayout.h (same operations, same choices where
// a choice is made: the least-squares inverse with identity dims kept, the
// order-independent supremum of dim lists in products), written so the
// results agree with the compiler's bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LINEARLAYOUT_H
#define GESTELL_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell {

class LinearLayout {
public:
  /// One entry per output dim: inline up to rank 4, so that building and
  /// copying a layout allocates per input dim, not per basis.
  using Basis = llvm::SmallVector<int32_t, 4>;
  struct InDim {
    std::string Name;
    std::vector<Basis> Bases;
    bool operator==(const InDim &O) const {
      return Name == O.Name && Bases == O.Bases;
    }
  };
  struct OutDim {
    std::string Name;
    int32_t Size = 1; ///< a power of two
    bool operator==(const OutDim &O) const {
      return Name == O.Name && Size == O.Size;
    }
  };

  /// The empty layout (no dims): the unit of operator*.
  LinearLayout() = default;
  /// Bases with explicit output sizes.
  LinearLayout(std::vector<InDim> Ins, std::vector<OutDim> Outs)
      : Ins(std::move(Ins)), Outs(std::move(Outs)) {}
  /// Bases with output sizes inferred (the next power of two above the
  /// largest basis value of each output dim), as Triton's constructor does.
  static LinearLayout inferOutSizes(std::vector<InDim> Ins,
                                    llvm::ArrayRef<std::string> OutNames);

  static LinearLayout identity1D(int32_t Size, llvm::StringRef In,
                                 llvm::StringRef Out);
  static LinearLayout zeros1D(int32_t Size, llvm::StringRef In,
                              llvm::StringRef Out, int32_t OutSize = 1);

  // -- shape --------------------------------------------------------------
  llvm::ArrayRef<InDim> ins() const { return Ins; }
  llvm::ArrayRef<OutDim> outs() const { return Outs; }
  std::vector<std::string> inDimNames() const;
  std::vector<std::string> outDimNames() const;
  bool hasInDim(llvm::StringRef D) const { return findIn(D) >= 0; }
  bool hasOutDim(llvm::StringRef D) const { return findOut(D) >= 0; }
  int inDimSizeLog2(llvm::StringRef D) const;
  int32_t inDimSize(llvm::StringRef D) const { return 1 << inDimSizeLog2(D); }
  int outDimSizeLog2(llvm::StringRef D) const;
  int32_t outDimSize(llvm::StringRef D) const;
  int totalInDimSizeLog2() const;
  int totalOutDimSizeLog2() const;
  /// Bases of an input dim (empty if absent).
  llvm::ArrayRef<Basis> bases(llvm::StringRef In) const;
  /// Basis I of input dim In, component of output dim Out (0 if absent).
  int32_t basis(llvm::StringRef In, int I, llvm::StringRef Out) const;

  // -- algebra ------------------------------------------------------------
  /// The product: Inner's dims minor, Outer's shifted above them. Dims are
  /// merged in the order of the supremum of both lists.
  friend LinearLayout operator*(const LinearLayout &Inner,
                                const LinearLayout &Outer);
  LinearLayout &operator*=(const LinearLayout &Outer) {
    return *this = *this * Outer;
  }
  bool operator==(const LinearLayout &O) const {
    return Ins == O.Ins && Outs == O.Outs;
  }
  bool operator!=(const LinearLayout &O) const { return !(*this == O); }

  LinearLayout transposeIns(llvm::ArrayRef<std::string> Order) const;
  LinearLayout transposeOuts(llvm::ArrayRef<std::string> Order) const;
  LinearLayout
  reshapeIns(llvm::ArrayRef<std::pair<std::string, int32_t>> NewIns) const;
  LinearLayout
  reshapeOuts(llvm::ArrayRef<std::pair<std::string, int32_t>> NewOuts) const;
  LinearLayout flattenIns() const;
  LinearLayout flattenOuts() const;
  LinearLayout sublayout(llvm::ArrayRef<std::string> InNames,
                         llvm::ArrayRef<std::string> OutNames) const;
  bool sublayoutIsZero(llvm::ArrayRef<std::string> InNames,
                       llvm::ArrayRef<std::string> OutNames) const;
  /// The sublayout Dims -> Dims is the identity (same sizes, bases 1,2,4..).
  bool squareSublayoutIsIdentity(llvm::ArrayRef<std::string> Dims) const;
  /// Identity on Dims, and Dims neither feed nor are fed by other dims.
  bool isTrivialOver(llvm::ArrayRef<std::string> Dims) const;
  /// This layout without Dims, if it is trivial over them.
  std::optional<LinearLayout> quotient(llvm::ArrayRef<std::string> Dims) const;

  /// Output coordinates of the given input coordinates.
  std::vector<std::pair<std::string, int32_t>>
  apply(llvm::ArrayRef<std::pair<std::string, int32_t>> In) const;
  /// Outer . this (this's outputs are Outer's inputs).
  LinearLayout compose(const LinearLayout &Outer) const;
  /// C with this(x) == Outer(C(x)): Outer's pseudo-inverse after this, with
  /// Triton's choices (input dims identical in both map to themselves; the
  /// rest is the minimal-norm least-squares solution).
  /// Outer may be larger than this along an out dim (Triton 3.6's
  /// LinearLayout::invertAndCompose): this's coordinates are then the low
  /// corner of Outer's, and C's outputs have Outer's full input sizes.
  /// Returns nullopt when no such C exists (this's image is not in Outer's,
  /// or this is larger than Outer along some out dim).
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &Outer) const;

  bool isSurjective() const;
  bool isInjective() const;

  /// C with this == B * C (resp. C * B), if it exists.
  friend std::optional<LinearLayout> divideLeft(const LinearLayout &A,
                                                const LinearLayout &B);
  friend std::optional<LinearLayout> divideRight(const LinearLayout &A,
                                                 const LinearLayout &B);

  /// "register = [[0, 1], ...], lane = [...], ... -> dim0 (128), dim1 (64)".
  std::string str() const;

private:
  int findIn(llvm::StringRef D) const;
  int findOut(llvm::StringRef D) const;
  std::vector<InDim> Ins;
  std::vector<OutDim> Outs;
};

/// A reordering (or dropping) of the register bases of a layout, as Triton's
/// ColumnAction: result register basis k is the old basis Order[k].
struct RegisterAction {
  std::vector<unsigned> Order;
  unsigned OldCount = 0;
  bool isIdentity() const;
  LinearLayout apply(const LinearLayout &L) const;
};

/// Drops the zero (broadcast) register bases.
RegisterAction removeBroadcastRegisters(const LinearLayout &L);
/// The reordering that brings the register bases of B to the front (Left)
/// or back of A's, if every one of them is among A's.
std::optional<RegisterAction>
registerPermutationForDivide(const LinearLayout &A, const LinearLayout &B,
                             bool Left);

} // namespace gestell

#endif
