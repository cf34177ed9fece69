//===- Layout.cpp - TritonGPU encodings: reading, printing, linear form ---===//
//
// toLinearLayout follows Triton 3.6's LinearLayoutConversions.cpp and
// LayoutUtils.cpp (blocked, slice, linear, nvidia_mma, dot_op over mma and
// over blocked, tensor memory): the same tiles, the same order of dims, the
// same way a tile is repeated over registers when the tensor is larger
// (ensureLayoutNotSmallerThan) and broadcast when it is smaller
// (ensureLayoutNotLargerThan, largest bases zeroed first).
//
//===----------------------------------------------------------------------===//
#include "gestell/Layout.h"
#include "gestell/Error.h"
#include "layout/AlgebraMemo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

using namespace llvm;

namespace gestell {

namespace {

using Vec = Layout::Vec;
using LL = LinearLayout;

std::string dimName(unsigned D) { return "dim" + std::to_string(D); }

std::vector<std::string> standardOutDimNames(unsigned Rank) {
  std::vector<std::string> N;
  for (unsigned D = 0; D < Rank; ++D)
    N.push_back(dimName(D));
  return N;
}

Error layoutError(const TtgirModule &M, const Attribute &A, const Twine &Msg) {
  auto [L, C] = M.lineColOf(A.Text.data());
  return inputError(M.Path, L, C, Msg);
}

Error llError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// 1D -> ND identity in the given order (order[0] most minor).
LL identityStandardND(StringRef In, ArrayRef<unsigned> Shape,
                      ArrayRef<unsigned> Order) {
  LL Ret;
  for (unsigned D : Order)
    Ret *= LL::identity1D(Shape[D], In, dimName(D));
  return Ret;
}

/// Triton's getMatrixOrder: [rank-1, ..., 0], the two minor ones swapped
/// when column-major.
Vec matrixOrder(unsigned Rank, bool RowMajor) {
  Vec O(Rank);
  for (unsigned K = 0; K < Rank; ++K)
    O[K] = Rank - 1 - K;
  if (!RowMajor && Rank >= 2)
    std::swap(O[0], O[1]);
  return O;
}

Vec orderForDotOperand(unsigned OpIdx, unsigned Rank, bool KContig) {
  bool RowMajor = bool(OpIdx) != KContig;
  return matrixOrder(Rank, RowMajor);
}

using ShapeMap = std::map<std::string, int64_t>;

/// Zero the largest bases of each output dim until it fits the shape
/// (broadcast); with BroadcastRegisters false, register bases are dropped
/// instead of zeroed.
LL ensureLayoutNotLargerThan(const LL &L, const ShapeMap &Shape,
                             bool BroadcastRegisters = true) {
  std::vector<LL::InDim> Ins(L.ins().begin(), L.ins().end());
  std::vector<std::string> OutNames = L.outDimNames();
  std::set<unsigned> DroppedRegs;
  for (size_t O = 0; O < OutNames.size(); ++O) {
    int64_t Actual = L.outDimSize(OutNames[O]);
    auto It = Shape.find(OutNames[O]);
    int64_t Desired = It == Shape.end() ? Actual : It->second;
    if (Actual <= Desired)
      continue;
    struct Entry {
      size_t In, Idx;
      int32_t Value;
    };
    std::vector<Entry> Sorted;
    for (size_t I = 0; I < Ins.size(); ++I)
      for (size_t B = 0; B < Ins[I].Bases.size(); ++B)
        if (int32_t V = Ins[I].Bases[B][O])
          Sorted.push_back({I, B, V});
    // Largest first; ties keep the order of the input dims and bases.
    std::stable_sort(
        Sorted.begin(), Sorted.end(),
        [](const Entry &A, const Entry &B) { return A.Value > B.Value; });
    for (const Entry &E : Sorted) {
      if (Actual <= Desired)
        break;
      if (!BroadcastRegisters && Ins[E.In].Name == "register")
        DroppedRegs.insert(E.Idx);
      else
        Ins[E.In].Bases[E.Idx][O] = 0;
      Actual >>= 1;
    }
  }
  if (!BroadcastRegisters && !DroppedRegs.empty())
    for (LL::InDim &D : Ins)
      if (D.Name == "register") {
        std::vector<LL::Basis> Kept;
        for (size_t B = 0; B < D.Bases.size(); ++B)
          if (!DroppedRegs.count(B))
            Kept.push_back(D.Bases[B]);
        D.Bases = std::move(Kept);
      }
  return LL::inferOutSizes(std::move(Ins), OutNames);
}

/// Repeat over the first input dim (registers) until each output dim is at
/// least the shape, in the order of the layout's output dims.
LL ensureLayoutNotSmallerThan(const LL &L, const ShapeMap &Shape) {
  if (L.ins().empty())
    return L;
  std::string KDim = L.ins().front().Name;
  LL Ret = L;
  for (const std::string &O : L.outDimNames()) {
    int64_t Actual = L.outDimSize(O);
    auto It = Shape.find(O);
    int64_t Desired = It == Shape.end() ? Actual : It->second;
    if (Desired > Actual)
      Ret *= LL::identity1D(int32_t(Desired / Actual), KDim, O);
  }
  return Ret;
}

/// The CTA layout as a linear layout (block -> dim0..), sizes inferred from
/// the bases (Triton's CTAEncodingAttr); one CTA: no bases, sizes 1. With
/// ZeroDim set, that component of every basis is zeroed (a dot operand is
/// broadcast over the CTAs that split its parent along K).
LL cgaLayout(const Layout &L, unsigned Rank, int ZeroDim = -1) {
  LL::InDim Block{"block", {}};
  for (const auto &B : L.CgaBases) {
    LL::Basis Basis(B.begin(), B.end());
    Basis.resize(Rank, 0);
    if (ZeroDim >= 0 && unsigned(ZeroDim) < Rank)
      Basis[ZeroDim] = 0;
    Block.Bases.push_back(std::move(Basis));
  }
  return LL::inferOutSizes({std::move(Block)}, standardOutDimNames(Rank));
}

Expected<LL> combineCtaCgaWithShape(LL Cta, const LL &CgaLayout,
                                    ArrayRef<int64_t> Shape) {
  unsigned Rank = Shape.size();
  ShapeMap Labeled;
  for (unsigned D = 0; D < Rank; ++D)
    Labeled[dimName(D)] = Shape[D];
  LL Cga = ensureLayoutNotLargerThan(CgaLayout, Labeled)
               .transposeOuts(Cta.outDimNames());
  ShapeMap CtaShape;
  for (const std::string &D : Cta.outDimNames())
    CtaShape[D] = std::max<int64_t>(1, Labeled[D] / Cga.outDimSize(D));
  Cta = ensureLayoutNotSmallerThan(Cta, CtaShape);
  Cta = ensureLayoutNotLargerThan(Cta, CtaShape);
  LL Ret = (Cta * Cga).transposeOuts(standardOutDimNames(Rank));
  for (unsigned D = 0; D < Rank; ++D)
    if (Ret.outDimSize(dimName(D)) != Shape[D])
      return llError("layout does not cover shape dim " + Twine(D));
  return Ret;
}

Expected<LL> combineCtaCgaWithShape(LL Cta, const Layout &CtaSource,
                                    ArrayRef<int64_t> Shape) {
  return combineCtaCgaWithShape(std::move(Cta),
                                cgaLayout(CtaSource, Shape.size()), Shape);
}

/// Lane/warp layout of a dot operand: broadcast along K.
LL broadcastedDotOperandLayout(ArrayRef<unsigned> Shape,
                               ArrayRef<unsigned> Order, unsigned KDim,
                               StringRef In) {
  LL Ret;
  for (unsigned D : Order)
    Ret *= D == KDim ? LL::zeros1D(Shape[D], In, dimName(D))
                     : LL::identity1D(Shape[D], In, dimName(D));
  return Ret;
}

LL nvidiaMmaTile(ArrayRef<unsigned> TileShape, unsigned KWidth,
                 ArrayRef<unsigned> Order, ArrayRef<unsigned> RepOrder) {
  unsigned Rank = RepOrder.size();
  Vec Trivial(Rank, 1);
  LL Cta = identityStandardND("register", Trivial, RepOrder);
  unsigned Inner = Order[0], Outer = Order[1];
  int M = TileShape[Outer], N = TileShape[Inner];
  Cta = Cta * LL::identity1D(KWidth, "register", dimName(Inner)) *
        LL::identity1D(4, "lane", dimName(Inner)) *
        LL::identity1D(8, "lane", dimName(Outer)) *
        LL::identity1D(M / 8, "register", dimName(Outer)) *
        LL::identity1D(N / (KWidth * 4), "register", dimName(Inner));
  return Cta;
}

Expected<LL> toLinear(const Layout &L, ArrayRef<int64_t> Shape);

Expected<LL> blockedToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  LL Cta = identityStandardND("register", L.SizePerThread, L.Order) *
           identityStandardND("lane", L.ThreadsPerWarp, L.Order) *
           identityStandardND("warp", L.WarpsPerCTA, L.Order);
  return combineCtaCgaWithShape(Cta, L, Shape);
}

Expected<LL> mmaToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  unsigned Rank = Shape.size();
  bool Hopper = L.VersionMajor == 3;
  Vec Tile;
  if (L.VersionMajor == 2) {
    Tile = L.InstrShape;
  } else if (Hopper) {
    if (L.InstrShape.size() < 2)
      return llError("nvidia_mma v3 needs instrShape [m, n, k]");
    Tile = {L.InstrShape[0], L.InstrShape[1]};
  } else {
    return llError("nvidia_mma version " + Twine(L.VersionMajor) +
                   " is not modelled");
  }
  if (Tile.size() != Rank) {
    if (Tile.size() == 2 && Rank == 3)
      Tile.insert(Tile.begin(), 1);
    else
      return llError("instrShape rank does not match the tensor");
  }
  Vec Order = matrixOrder(Rank, true);
  LL Cta = nvidiaMmaTile(Tile, 2, Order, matrixOrder(Rank, true));
  Vec WarpOrder = matrixOrder(Rank, !Hopper);
  Cta *= identityStandardND("warp", L.WarpsPerCTA, WarpOrder)
             .transposeOuts(Cta.outDimNames());
  return combineCtaCgaWithShape(Cta, L, Shape);
}

Expected<LL> dotToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  unsigned Rank = Shape.size();
  // An operand of a matrix product has an M (or N) and a K dimension.
  if (Rank < 2)
    return llError("a dot_op layout needs a tensor of rank 2 or more, not " +
                   Twine(Rank));
  const Layout &P = *L.Parent;
  bool IsA = L.OpIdx == 0;
  unsigned KDim = IsA ? Rank - 1 : Rank - 2;
  if (P.K == Layout::Kind::Blocked) {
    // FMA dot operand: each thread holds the whole K.
    Vec Order = P.Order, ThreadSize = P.SizePerThread;
    ThreadSize[KDim] = Shape[KDim];
    std::vector<std::string> RepDims;
    for (unsigned D : Order)
      RepDims.push_back(dimName(D));
    LL Regs = identityStandardND("register", ThreadSize, Order);
    LL Lanes =
        broadcastedDotOperandLayout(P.ThreadsPerWarp, Order, KDim, "lane");
    LL Warps = broadcastedDotOperandLayout(P.WarpsPerCTA, Order, KDim, "warp");
    LL Cta = Regs.transposeOuts(RepDims) * Lanes.transposeOuts(RepDims) *
             Warps.transposeOuts(RepDims);
    return combineCtaCgaWithShape(Cta, cgaLayout(P, Rank, KDim), Shape);
  }
  if (P.K != Layout::Kind::NvidiaMma)
    return llError("dot_op over " + P.Name + " is not modelled");
  bool Hopper = P.VersionMajor == 3;
  if (!IsA && Hopper)
    return llError("dot_op opIdx = 1 over nvidia_mma v3 is not a register "
                   "layout (Hopper reads B from shared memory)");
  unsigned KWidth = L.KWidth;
  if (!KWidth)
    return llError("dot_op over nvidia_mma needs kWidth");
  Vec Tile(Rank, 1);
  if (IsA) {
    Tile[Rank - 2] = 16;
    Tile[Rank - 1] = KWidth * 8;
  } else {
    Tile[Rank - 2] = KWidth * 8;
    Tile[Rank - 1] = 8;
  }
  Vec Order = orderForDotOperand(L.OpIdx, Rank, true);
  LL Cta = nvidiaMmaTile(Tile, KWidth, Order, Order);
  Vec WarpOrder = matrixOrder(Rank, !Hopper);
  Cta *= broadcastedDotOperandLayout(P.WarpsPerCTA, WarpOrder, KDim, "warp")
             .transposeOuts(Cta.outDimNames());
  return combineCtaCgaWithShape(Cta, cgaLayout(P, Rank, KDim), Shape);
}

Expected<LL> sliceToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  SmallVector<int64_t, 4> ParentShape(Shape.begin(), Shape.end());
  if (L.Dim > ParentShape.size())
    return llError("slice dim out of range");
  ParentShape.insert(ParentShape.begin() + L.Dim, 1);
  Expected<LL> Parent = toLinear(*L.Parent, ParentShape);
  if (!Parent)
    return Parent.takeError();
  std::vector<std::string> OutNames = standardOutDimNames(Shape.size() + 1);
  LL Transform;
  std::vector<std::string> ParentOuts = Parent->outDimNames();
  for (size_t Idx = 0; Idx < ParentOuts.size(); ++Idx) {
    int32_t Size = Parent->outDimSize(ParentOuts[Idx]);
    if (Idx == L.Dim)
      Transform *= LL::zeros1D(Size, ParentOuts[Idx], OutNames[0]);
    else
      Transform *= LL::identity1D(Size, ParentOuts[Idx],
                                  OutNames[Idx - (Idx < L.Dim ? 0 : 1)]);
  }
  LL Sliced = Parent->compose(Transform);
  std::vector<LL::InDim> Ins(Sliced.ins().begin(), Sliced.ins().end());
  for (LL::InDim &D : Ins)
    if (D.Name == "register")
      llvm::erase_if(D.Bases, [](const LL::Basis &B) {
        return llvm::all_of(B, [](int32_t V) { return V == 0; });
      });
  return LL::inferOutSizes(std::move(Ins), Sliced.outDimNames());
}

Expected<LL> linearToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  const LL &Base = L.Linear;
  std::vector<std::string> Canonical = Base.outDimNames();
  if (Canonical.size() != Shape.size())
    return llError("linear layout rank " + Twine(Canonical.size()) +
                   " does not match the tensor rank " + Twine(Shape.size()));
  // getRepOrder() of a linear encoding is its order: the dims as registers
  // first move along them, then the remaining dims from the last one.
  Vec Order;
  for (const LL::Basis &B : Base.bases("register"))
    for (size_t K = 0; K < B.size(); ++K)
      if (B[K] != 0) {
        if (!is_contained(Order, unsigned(K)))
          Order.push_back(K);
        break;
      }
  for (unsigned D = Shape.size(); D-- > 0;)
    if (!is_contained(Order, D))
      Order.push_back(D);
  std::vector<std::string> Permuted;
  ShapeMap Named;
  for (unsigned D : Order) {
    Permuted.push_back(Canonical[D]);
    Named[Canonical[D]] = Shape[D];
  }
  LL R = Base.transposeOuts(Permuted);
  R = ensureLayoutNotSmallerThan(R, Named);
  R = ensureLayoutNotLargerThan(R, Named, /*BroadcastRegisters=*/false);
  return R.transposeOuts(Canonical);
}

Expected<LL> tmemToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  if (Shape.size() != 2)
    return llError("tensor memory layouts are 2D");
  if (L.CTASplitN > 1) {
    Layout Sub = L;
    Sub.CTASplitN = 1;
    Expected<LL> R = tmemToLinear(Sub, {Shape[0], Shape[1] / L.CTASplitN});
    if (!R)
      return R;
    return *R * LL::identity1D(L.CTASplitN, "col", "dim1");
  }
  if (L.CTASplitM > 1) {
    // blockM = 64 in 2-CTA mode is laid out as the transpose of 128 x
    // blockN (PTX ISA, tcgen05 data path layout B): one M split fewer, and
    // the last row and column bases swapped.
    bool M64TwoCta = L.BlockM == 64 && L.TwoCTAs;
    unsigned SplitM = M64TwoCta ? L.CTASplitM / 2 : L.CTASplitM;
    Layout Sub = L;
    Sub.CTASplitM = 1;
    if (M64TwoCta)
      Sub.BlockM = 128;
    Expected<LL> R = tmemToLinear(Sub, {Shape[0] / SplitM, Shape[1]});
    if (!R)
      return R;
    LL Ret = *R * LL::identity1D(SplitM, "col", "dim0");
    if (!M64TwoCta)
      return Ret;
    std::vector<LL::InDim> Ins(Ret.ins().begin(), Ret.ins().end());
    LL::InDim *Row = nullptr, *Col = nullptr;
    for (LL::InDim &D : Ins)
      (D.Name == "row" ? Row : Col) = &D;
    if (!Row || !Col || Row->Bases.empty() || Col->Bases.empty())
      return llError("2-CTA tensor memory layout has no row or column");
    std::swap(Row->Bases.back(), Col->Bases.back());
    return LL(std::move(Ins),
              std::vector<LL::OutDim>(Ret.outs().begin(), Ret.outs().end()));
  }
  int32_t BlockM = L.BlockM;
  int32_t BlockN = std::min<int64_t>(L.BlockN, Shape[1]);
  if (BlockM != 64 && BlockM != 128)
    return llError("blockM must be 64 or 128");
  LL Tile = LL::zeros1D(L.ColStride, "col", "dim1");
  if (BlockM == 64) {
    Tile *= LL::identity1D(16, "row", "dim0") *
            LL::identity1D(BlockN, "col", "dim1");
    std::vector<LL::InDim> Ins(Tile.ins().begin(), Tile.ins().end());
    for (LL::InDim &D : Ins)
      if (D.Name == "row") {
        if (Shape[0] > BlockM)
          D.Bases.push_back({64, 0});
        else if (Shape[1] > BlockN)
          D.Bases.push_back({0, BlockN});
        else
          D.Bases.push_back({0, 0});
        D.Bases.push_back({16, 0});
        D.Bases.push_back({32, 0});
      }
    Tile = LL::inferOutSizes(std::move(Ins), {"dim0", "dim1"});
  } else {
    Tile *= LL::identity1D(BlockM, "row", "dim0") *
            LL::identity1D(BlockN, "col", "dim1");
  }
  int64_t RepsM = Shape[0] / Tile.outDimSize("dim0");
  int64_t RepsN = Shape[1] / Tile.outDimSize("dim1");
  if (RepsM < 1 || RepsN < 1)
    return llError("tensor memory block is larger than the tensor");
  return Tile * LL::identity1D(RepsM, "col", "dim0") *
         LL::identity1D(RepsN, "col", "dim1");
}

Expected<LL> tmemScalesToLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  if (Shape.size() != 2)
    return llError("tensor memory layouts are 2D");
  if (L.CTASplitN > 1 || L.CTASplitM > 1) {
    Layout Sub = L;
    bool N = L.CTASplitN > 1;
    (N ? Sub.CTASplitN : Sub.CTASplitM) = 1;
    unsigned Split = N ? L.CTASplitN : L.CTASplitM;
    Expected<LL> R = tmemScalesToLinear(
        Sub, N ? ArrayRef<int64_t>{Shape[0], Shape[1] / Split}
               : ArrayRef<int64_t>{Shape[0] / Split, Shape[1]});
    if (!R)
      return R;
    return *R * LL::identity1D(Split, "col", N ? "dim1" : "dim0");
  }
  LL Tile = LL::identity1D(32, "row", "dim0") * LL::zeros1D(4, "row", "dim0") *
            LL::identity1D(4, "col", "dim1") * LL::identity1D(2, "col", "dim0");
  Tile *= LL::identity1D(int32_t(divideCeil(Shape[0], Tile.outDimSize("dim0"))),
                         "col", "dim0") *
          LL::identity1D(int32_t(divideCeil(Shape[1], Tile.outDimSize("dim1"))),
                         "col", "dim1");
  return ensureLayoutNotLargerThan(Tile,
                                   {{"dim0", Shape[0]}, {"dim1", Shape[1]}});
}

Expected<LL> toLinear(const Layout &L, ArrayRef<int64_t> Shape) {
  unsigned Bits = 0;
  for (int64_t D : Shape) {
    if (D < 1 || !isPowerOf2_64(D))
      return llError("shape dims must be powers of two (got " + Twine(D) + ")");
    Bits += Log2_64(D);
  }
  if (Bits > 30)
    return llError("tensor of 2^" + Twine(Bits) +
                   " elements is larger than a CTA can hold");
  if (L.rank() && L.rank() != Shape.size())
    return llError(L.Name + " has rank " + Twine(L.rank()) +
                   " but the tensor has rank " + Twine(Shape.size()));
  switch (L.K) {
  case Layout::Kind::Blocked:
    return blockedToLinear(L, Shape);
  case Layout::Kind::NvidiaMma:
    return mmaToLinear(L, Shape);
  case Layout::Kind::DotOperand:
    return dotToLinear(L, Shape);
  case Layout::Kind::Slice:
    return sliceToLinear(L, Shape);
  case Layout::Kind::Linear:
    return linearToLinear(L, Shape);
  case Layout::Kind::TensorMemory:
    return tmemToLinear(L, Shape);
  case Layout::Kind::TensorMemoryScales:
    return tmemScalesToLinear(L, Shape);
  default:
    return llError("no linear layout for " + L.Name);
  }
}

//===----------------------------------------------------------------------===//
// Reading attributes
//===----------------------------------------------------------------------===//

bool isPermutation(ArrayRef<unsigned> Order) {
  std::vector<bool> Seen(Order.size(), false);
  for (unsigned O : Order) {
    if (O >= Order.size() || Seen[O])
      return false;
    Seen[O] = true;
  }
  return true;
}

class Reader {
public:
  Reader(const Attribute &A, const TtgirModule &M) : A(A), M(M) {}

  Error intArray(StringRef Key, Vec &Out, bool Required = true) {
    const Attribute *V = A.get(Key);
    if (!V)
      return Required ? missing(Key) : Error::success();
    auto Arr = A.getIntArray(Key);
    if (!Arr || llvm::any_of(*Arr, [](int64_t X) { return X < 0; }))
      return layoutError(M, A,
                         "#" + A.Spelling + ": '" + Key +
                             "' must be a list of non-negative integers");
    Out.assign(Arr->begin(), Arr->end());
    return Error::success();
  }
  Error integer(StringRef Key, unsigned &Out, bool Required = true) {
    const Attribute *V = A.get(Key);
    if (!V)
      return Required ? missing(Key) : Error::success();
    auto I = A.getInt(Key);
    if (!I || *I < 0 || *I > (int64_t(1) << 24))
      return layoutError(M, A,
                         "#" + A.Spelling + ": '" + Key +
                             "' must be an integer from 0 to 2^24");
    Out = unsigned(*I);
    return Error::success();
  }
  Error boolean(StringRef Key, bool &Out, bool Required = true) {
    const Attribute *V = A.get(Key);
    if (!V)
      return Required ? missing(Key) : Error::success();
    if (V->K != Attribute::Kind::Bool)
      return layoutError(
          M, A, "#" + A.Spelling + ": '" + Key + "' must be true or false");
    Out = V->Int != 0;
    return Error::success();
  }
  /// The bases of one input dim of a linear or shared_linear layout: lists
  /// of Rank non-negative integers (Rank set by the first one when < 0); a
  /// distributed layout's bases each move in at most one dim.
  Expected<std::vector<LinearLayout::Basis>> bases(StringRef In, int &Rank,
                                                   bool Distributed) {
    const Attribute *V = A.get(In);
    if (!V || V->K != Attribute::Kind::Array)
      return fail("'" + In + "' must be a list of bases");
    std::vector<LinearLayout::Basis> Out;
    for (const Attribute *B : V->Elements) {
      if (B->K != Attribute::Kind::Array)
        return fail("'" + In + "' must be a list of bases");
      LinearLayout::Basis Basis;
      for (const Attribute *X : B->Elements) {
        if (X->K != Attribute::Kind::Integer || X->Int < 0 ||
            X->Int > (1 << 24))
          return fail("bases of '" + In +
                      "' must hold integers from 0 to 2^24");
        Basis.push_back(int32_t(X->Int));
      }
      if (Rank < 0)
        Rank = Basis.size();
      if (int(Basis.size()) != Rank)
        return fail("all bases must have the same length");
      if (Distributed &&
          llvm::count_if(Basis, [](int32_t X) { return X != 0; }) > 1)
        return fail("in a distributed layout, each base must move in at "
                    "most one dimension");
      Out.push_back(std::move(Basis));
    }
    if (Out.size() > 30)
      return fail("'" + In + "' has more than 30 bases");
    return Out;
  }
  Error missing(StringRef Key) {
    return layoutError(M, A,
                       "layout #" + A.Spelling + " is missing '" + Key + "'");
  }
  Error fail(const Twine &Msg) {
    return layoutError(M, A, "#" + A.Spelling + ": " + Msg);
  }
  /// The CTA layout: `CGALayout = [[...], ...]` (Triton 3.6), or the legacy
  /// CTAsPerCGA / CTASplitNum / CTAOrder (Triton 3.5 and before), for a
  /// layout of the given rank.
  Error cta(Layout &L, unsigned Rank) {
    if (const Attribute *V = A.get("CGALayout")) {
      if (V->K != Attribute::Kind::Array)
        return fail("'CGALayout' must be a list of bases");
      for (const Attribute *B : V->Elements) {
        if (B->K != Attribute::Kind::Array)
          return fail("'CGALayout' must be a list of bases");
        if (B->Elements.size() != Rank)
          return fail("'CGALayout' entry length does not match rank " +
                      Twine(Rank));
        SmallVector<int32_t, 4> Basis;
        for (const Attribute *X : B->Elements) {
          if (X->K != Attribute::Kind::Integer || X->Int < 0 ||
              X->Int > (1 << 16))
            return fail("'CGALayout' entries must be integers from 0 to "
                        "65536");
          Basis.push_back(int32_t(X->Int));
        }
        L.CgaBases.push_back(std::move(Basis));
      }
      if (L.CgaBases.size() > 16)
        return fail("'CGALayout' names more than 2^16 CTAs");
      if (!cgaLayout(L, Rank).isSurjective())
        return fail("'CGALayout' does not cover its tiles (not surjective)");
      return Error::success();
    }
    Vec CTAs, Split, Order;
    if (Error E = intArray("CTAsPerCGA", CTAs, false))
      return E;
    if (Error E = intArray("CTASplitNum", Split, false))
      return E;
    if (Error E = intArray("CTAOrder", Order, false))
      return E;
    if (CTAs.empty())
      return Error::success();
    if (Split.empty())
      Split = CTAs;
    if (Order.empty())
      Order = matrixOrder(Rank, true);
    if (CTAs.size() != Rank || Split.size() != Rank || Order.size() != Rank)
      return fail("CTAsPerCGA, CTASplitNum and CTAOrder must have the "
                  "layout's rank");
    if (!isPermutation(Order))
      return fail("CTAOrder must be a permutation of 0..rank-1");
    // Triton's CTAEncodingAttr::fromSplitParams: per dim, fastest first,
    // the split's bases (tile coordinates 1, 2, 4, ...), then zero bases
    // for the CTAs that repeat it.
    for (unsigned D : Order) {
      if (!isPowerOf2_32(CTAs[D]) || !isPowerOf2_32(Split[D]) ||
          Split[D] > CTAs[D] || CTAs[D] > (1u << 16))
        return fail("CTAsPerCGA and CTASplitNum must be powers of two, the "
                    "split no larger than the CTAs");
      for (unsigned V = 1; V < Split[D]; V <<= 1) {
        SmallVector<int32_t, 4> B(Rank, 0);
        B[D] = V;
        L.CgaBases.push_back(std::move(B));
      }
      for (unsigned V = Split[D]; V < CTAs[D]; V <<= 1)
        L.CgaBases.push_back(SmallVector<int32_t, 4>(Rank, 0));
    }
    return Error::success();
  }

  const Attribute &A;
  const TtgirModule &M;
};

/// The parent layout of a slice or dot_op.
Expected<Layout> readParent(Reader &R) {
  const Attribute *P = R.A.get("parent");
  if (!P)
    return R.missing("parent");
  return parseLayout(*P, R.M);
}

/// Makes L, a slice or dot_op of a layout we do not model (AMD's MFMA and
/// WMMA, a future one), a layout we do not model either: kept by name like
/// its parent, never printed as a slice or dot_op that lost its parent's
/// fields. Triton's AMD backend slices #ttg.amd_mfma for every row and
/// column index.
void keepUnmodelled(Layout &L) {
  Layout Unknown;
  Unknown.Name = std::move(L.Name);
  L = std::move(Unknown);
}

Error readBlocked(Reader &R, Layout &L) {
  if (Error E = R.intArray("sizePerThread", L.SizePerThread))
    return E;
  if (Error E = R.intArray("threadsPerWarp", L.ThreadsPerWarp))
    return E;
  if (Error E = R.intArray("warpsPerCTA", L.WarpsPerCTA))
    return E;
  if (Error E = R.intArray("order", L.Order))
    return E;
  size_t Rank = L.SizePerThread.size();
  if (Error E = R.cta(L, Rank))
    return E;
  if (L.ThreadsPerWarp.size() != Rank || L.WarpsPerCTA.size() != Rank ||
      L.Order.size() != Rank)
    return R.fail("sizePerThread, threadsPerWarp, warpsPerCTA and order "
                  "must have the same rank");
  if (!isPermutation(L.Order))
    return R.fail("order must be a permutation of 0..rank-1");
  for (unsigned V :
       concat<unsigned>(L.SizePerThread, L.ThreadsPerWarp, L.WarpsPerCTA))
    if (!isPowerOf2_32(V) || V > (1u << 16))
      return R.fail("sizes must be powers of two no larger than 65536");
  return Error::success();
}

Error readSlice(Reader &R, Layout &L) {
  if (Error E = R.integer("dim", L.Dim))
    return E;
  Expected<Layout> PL = readParent(R);
  if (!PL)
    return PL.takeError();
  if (PL->K == Layout::Kind::Other) {
    keepUnmodelled(L);
    return Error::success();
  }
  if (!PL->isDistributed())
    return R.fail("parent must be a distributed layout");
  if (L.Dim >= PL->rank())
    return R.fail("dim " + Twine(L.Dim) + " is out of the parent's rank");
  L.Parent = std::make_shared<Layout>(std::move(*PL));
  return Error::success();
}

Error readDotOperand(Reader &R, Layout &L) {
  if (Error E = R.integer("opIdx", L.OpIdx))
    return E;
  if (Error E = R.integer("kWidth", L.KWidth, /*Required=*/false))
    return E;
  if (L.OpIdx > 1)
    return R.fail("opIdx must be 0 or 1");
  Expected<Layout> PL = readParent(R);
  if (!PL)
    return PL.takeError();
  if (PL->K == Layout::Kind::Other) {
    keepUnmodelled(L);
    return Error::success();
  }
  L.Parent = std::make_shared<Layout>(std::move(*PL));
  return Error::success();
}

Error readNvidiaMma(Reader &R, Layout &L) {
  if (Error E = R.integer("versionMajor", L.VersionMajor))
    return E;
  // versionMinor: optional, 0 by default (Triton's parser).
  if (Error E = R.integer("versionMinor", L.VersionMinor, false))
    return E;
  if (Error E = R.intArray("warpsPerCTA", L.WarpsPerCTA))
    return E;
  if (Error E = R.intArray("instrShape", L.InstrShape))
    return E;
  if (Error E = R.cta(L, L.WarpsPerCTA.size()))
    return E;
  for (unsigned V : concat<unsigned>(L.WarpsPerCTA, L.InstrShape))
    if (!isPowerOf2_32(V) || V > (1u << 16))
      return R.fail("warpsPerCTA and instrShape must be powers of two no "
                    "larger than 65536");
  if (L.VersionMajor == 2 && L.InstrShape.size() < 2)
    return R.fail("versionMajor = 2 needs instrShape [m, n]");
  if (L.VersionMajor == 3 && L.InstrShape.size() != 3)
    return R.fail("versionMajor = 3 needs instrShape [m, n, k]");
  return Error::success();
}

/// The bases of the input dims Ins of a linear or shared_linear layout:
/// the first Required of them must be there, another one absent has none.
Error readInDims(Reader &R, ArrayRef<const char *> Ins, size_t Required,
                 bool Distributed, std::vector<LinearLayout::InDim> &Out,
                 int &Rank) {
  for (auto [K, In] : enumerate(Ins)) {
    LinearLayout::InDim D{In, {}};
    if (R.A.get(In)) {
      Expected<std::vector<LinearLayout::Basis>> B =
          R.bases(In, Rank, Distributed);
      if (!B)
        return B.takeError();
      D.Bases = std::move(*B);
    } else if (K < Required) {
      return R.missing(In);
    }
    Out.push_back(std::move(D));
  }
  return Error::success();
}

/// L's linear layout from its input dims, which must cover What.
Error setLinear(Reader &R, Layout &L, std::vector<LinearLayout::InDim> Ins,
                unsigned Rank, StringRef What) {
  L.Linear =
      LinearLayout::inferOutSizes(std::move(Ins), standardOutDimNames(Rank));
  if (!L.Linear.isSurjective())
    return R.fail("the bases do not cover the " + What + " (not surjective)");
  return Error::success();
}

Error readLinear(Reader &R, Layout &L) {
  std::vector<LinearLayout::InDim> Ins;
  int Rank = -1;
  if (Error E = readInDims(R, {"register", "lane", "warp", "block"}, 4,
                           /*Distributed=*/true, Ins, Rank))
    return E;
  return setLinear(R, L, std::move(Ins), std::max(Rank, 0), "tensor");
}

Error readSwizzledShared(Reader &R, Layout &L) {
  if (Error E = R.integer("vec", L.Vec_))
    return E;
  if (Error E = R.integer("perPhase", L.PerPhase))
    return E;
  if (Error E = R.integer("maxPhase", L.MaxPhase))
    return E;
  if (Error E = R.intArray("order", L.Order))
    return E;
  if (!isPermutation(L.Order))
    return R.fail("order must be a permutation of 0..rank-1");
  return R.cta(L, L.Order.size());
}

Error readNvmmaShared(Reader &R, Layout &L) {
  if (Error E = R.integer("swizzlingByteWidth", L.SwizzlingByteWidth))
    return E;
  if (Error E = R.boolean("transposed", L.Transposed))
    return E;
  if (Error E = R.integer("elementBitWidth", L.ElementBitWidth))
    return E;
  if (Error E = R.boolean("fp4Padded", L.Fp4Padded, false))
    return E;
  if (Error E = R.integer("rank", L.NvmmaRank, false))
    return E;
  if (L.NvmmaRank < 1 || L.NvmmaRank > 8)
    return R.fail("rank must be from 1 to 8");
  // A rank other than 2 with CTAs is printed without `rank`: the bases
  // say it.
  if (const Attribute *C = R.A.get("CGALayout"))
    if (!R.A.get("rank") && C->K == Attribute::Kind::Array &&
        !C->Elements.empty() &&
        C->Elements.front()->K == Attribute::Kind::Array)
      L.NvmmaRank = C->Elements.front()->Elements.size();
  return R.cta(L, L.NvmmaRank);
}

/// #ttg.shared_linear<{offset = [...][, block = [...]]}, alignment = A>
Error readSharedLinear(Reader &R, Layout &L) {
  std::vector<LinearLayout::InDim> Ins;
  int Rank = -1;
  if (Error E = readInDims(R, {"offset", "block"}, 1, /*Distributed=*/false,
                           Ins, Rank))
    return E;
  if (Rank <= 0)
    return R.fail("empty layout");
  if (Error E = R.integer("alignment", L.Alignment))
    return E;
  if (!isPowerOf2_32(L.Alignment))
    return R.fail("alignment must be a positive power of two");
  return setLinear(R, L, std::move(Ins), Rank, "buffer");
}

Error readTensorMemory(Reader &R, Layout &L) {
  if (Error E = R.integer("blockM", L.BlockM))
    return E;
  if (Error E = R.integer("blockN", L.BlockN))
    return E;
  if (R.A.get("colStride")) {
    if (Error E = R.integer("colStride", L.ColStride))
      return E;
  } else if (!R.A.get("unpacked")) {
    // Triton before 3.5 spelled it `unpacked`; its linear form ignored it.
    return R.missing("colStride");
  }
  if (Error E = R.integer("CTASplitM", L.CTASplitM, false))
    return E;
  if (Error E = R.integer("CTASplitN", L.CTASplitN, false))
    return E;
  if (Error E = R.boolean("twoCTAs", L.TwoCTAs, false))
    return E;
  if (L.BlockM != 64 && L.BlockM != 128)
    return R.fail("blockM must be 64 or 128 but got " + Twine(L.BlockM));
  if (!isPowerOf2_32(L.BlockN) || L.BlockN > 512)
    return R.fail("blockN must be a power of 2 no larger than 512 but got " +
                  Twine(L.BlockN));
  if (L.ColStride != 1 && L.ColStride != 2 && L.ColStride != 4)
    return R.fail("colStride must be 1, 2, or 4 but got " + Twine(L.ColStride));
  if (!isPowerOf2_32(L.CTASplitM) || !isPowerOf2_32(L.CTASplitN))
    return R.fail("CTASplitM and CTASplitN must be powers of two");
  return Error::success();
}

Error readTensorMemoryScales(Reader &R, Layout &L) {
  if (Error E = R.integer("CTASplitM", L.CTASplitM, false))
    return E;
  return R.integer("CTASplitN", L.CTASplitN, false);
}

/// Each layout attribute parseLayout models: its name, its kind, and what
/// reads and checks its fields (none for #ttg.shared_memory).
struct LayoutKindReader {
  StringRef Name;
  Layout::Kind K;
  Error (*Read)(Reader &, Layout &);
};
const LayoutKindReader LayoutKinds[] = {
    {"ttg.blocked", Layout::Kind::Blocked, readBlocked},
    {"ttg.slice", Layout::Kind::Slice, readSlice},
    {"ttg.dot_op", Layout::Kind::DotOperand, readDotOperand},
    {"ttg.nvidia_mma", Layout::Kind::NvidiaMma, readNvidiaMma},
    {"ttg.linear", Layout::Kind::Linear, readLinear},
    {"ttg.swizzled_shared", Layout::Kind::SwizzledShared, readSwizzledShared},
    {"ttg.nvmma_shared", Layout::Kind::NVMMAShared, readNvmmaShared},
    {"ttg.shared_linear", Layout::Kind::SharedLinear, readSharedLinear},
    {"ttg.shared_memory", Layout::Kind::SharedMemorySpace, nullptr},
    {"ttng.tensor_memory_encoding", Layout::Kind::TensorMemory,
     readTensorMemory},
    {"ttng.tensor_memory_scales_encoding", Layout::Kind::TensorMemoryScales,
     readTensorMemoryScales},
};

// The lists of numbers are built in a local buffer and written once:
// raw_string_ostream has no buffer, so each `<<` of a number or a ", " was
// a call that appended to the string (canonical texts key the layout
// algebra's memo and name every conversion).

/// "[a, b, c]" of V appended to Out.
template <typename T>
void appendList(SmallVectorImpl<char> &Out, ArrayRef<T> V) {
  Out.push_back('[');
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      Out.append({',', ' '});
    char Digits[24];
    char *End = std::to_chars(Digits, Digits + sizeof Digits, V[I]).ptr;
    Out.append(Digits, End);
  }
  Out.push_back(']');
}

/// "[[a, b], [c]]" of Lists (each a list of numbers) appended to Out.
template <typename ListsT>
void appendLists(SmallVectorImpl<char> &Out, const ListsT &Lists) {
  Out.push_back('[');
  for (size_t I = 0; I < std::size(Lists); ++I) {
    if (I)
      Out.append({',', ' '});
    appendList(Out, ArrayRef(Lists[I]));
  }
  Out.push_back(']');
}

void printVec(raw_ostream &OS, ArrayRef<unsigned> V) {
  SmallString<64> S;
  appendList(S, V);
  OS << S;
}

/// `, CGALayout = [[0, 1], [1, 0]]` as Triton 3.6 prints it; nothing for
/// one CTA.
void printCta(raw_ostream &OS, const Layout &L) {
  if (L.CgaBases.empty())
    return;
  SmallString<64> S(", CGALayout = ");
  appendLists(S, L.CgaBases);
  OS << S;
}

void printBases(raw_ostream &OS, const LinearLayout &L,
                ArrayRef<const char *> Ins) {
  SmallString<256> S;
  for (size_t K = 0; K < Ins.size(); ++K) {
    if (K)
      S.append(", ");
    S.append(StringRef(Ins[K]));
    S.append(" = ");
    appendLists(S, L.bases(Ins[K]));
  }
  OS << S;
}

} // namespace

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

LayoutContext LayoutContext::of(const TtgirModule &M) {
  LayoutContext C;
  C.NumWarps = M.numWarps();
  C.ThreadsPerWarp = M.threadsPerWarp();
  C.NumCtas = M.numCtas();
  if (M.module())
    if (const Attribute *A = M.module()->attr("ttg.maxnreg"))
      if (A->K == Attribute::Kind::Integer && A->Int > 0)
        C.MaxNReg = int(A->Int);
  return C;
}

bool Layout::isDistributed() const {
  switch (K) {
  case Kind::Blocked:
  case Kind::Slice:
  case Kind::Linear:
  case Kind::NvidiaMma:
  case Kind::DotOperand:
    return true;
  default:
    return false;
  }
}

unsigned Layout::rank() const {
  switch (K) {
  case Kind::Blocked:
    return SizePerThread.size();
  case Kind::Slice:
    return Parent && Parent->rank() ? Parent->rank() - 1 : 0;
  case Kind::Linear:
    return Linear.outs().size();
  case Kind::NvidiaMma:
    return WarpsPerCTA.size();
  case Kind::DotOperand:
    return Parent ? Parent->rank() : 0;
  case Kind::SwizzledShared:
    return Order.size();
  case Kind::NVMMAShared:
    return NvmmaRank;
  case Kind::SharedLinear:
    return Linear.outs().size();
  case Kind::TensorMemory:
  case Kind::TensorMemoryScales:
    return 2;
  default:
    return 0;
  }
}

unsigned Layout::numCtas() const {
  switch (K) {
  case Kind::Slice:
  case Kind::DotOperand:
    return Parent ? Parent->numCtas() : 1;
  case Kind::Linear:
  case Kind::SharedLinear:
    return 1u << Linear.bases("block").size();
  default:
    return 1u << CgaBases.size();
  }
}

std::string Layout::canonicalText() const {
  std::string S;
  raw_string_ostream OS(S);
  switch (K) {
  case Kind::Blocked:
    OS << "#ttg.blocked<{sizePerThread = ";
    printVec(OS, SizePerThread);
    OS << ", threadsPerWarp = ";
    printVec(OS, ThreadsPerWarp);
    OS << ", warpsPerCTA = ";
    printVec(OS, WarpsPerCTA);
    OS << ", order = ";
    printVec(OS, Order);
    printCta(OS, *this);
    OS << "}>";
    break;
  case Kind::Slice:
    OS << "#ttg.slice<{dim = " << Dim
       << ", parent = " << (Parent ? Parent->canonicalText() : "?") << "}>";
    break;
  case Kind::Linear:
    OS << "#ttg.linear<{";
    printBases(OS, Linear, {"register", "lane", "warp", "block"});
    OS << "}>";
    break;
  case Kind::SharedLinear:
    OS << "#ttg.shared_linear<{";
    if (Linear.bases("block").empty())
      printBases(OS, Linear, {"offset"});
    else
      printBases(OS, Linear, {"offset", "block"});
    OS << "}, alignment = " << Alignment << ">";
    break;
  case Kind::NvidiaMma:
    OS << "#ttg.nvidia_mma<{versionMajor = " << VersionMajor
       << ", versionMinor = " << VersionMinor << ", warpsPerCTA = ";
    printVec(OS, WarpsPerCTA);
    printCta(OS, *this);
    OS << ", instrShape = ";
    printVec(OS, InstrShape);
    OS << "}>";
    break;
  case Kind::DotOperand:
    OS << "#ttg.dot_op<{opIdx = " << OpIdx
       << ", parent = " << (Parent ? Parent->canonicalText() : "?");
    if (KWidth)
      OS << ", kWidth = " << KWidth;
    OS << "}>";
    break;
  case Kind::SwizzledShared:
    OS << "#ttg.swizzled_shared<{vec = " << Vec_ << ", perPhase = " << PerPhase
       << ", maxPhase = " << MaxPhase << ", order = ";
    printVec(OS, Order);
    printCta(OS, *this);
    OS << "}>";
    break;
  case Kind::NVMMAShared:
    OS << "#ttg.nvmma_shared<{swizzlingByteWidth = " << SwizzlingByteWidth
       << ", transposed = " << (Transposed ? "true" : "false")
       << ", elementBitWidth = " << ElementBitWidth;
    if (Fp4Padded)
      OS << ", fp4Padded = true";
    if (CgaBases.empty() && NvmmaRank != 2)
      OS << ", rank = " << NvmmaRank;
    printCta(OS, *this);
    OS << "}>";
    break;
  case Kind::SharedMemorySpace:
    OS << "#ttg.shared_memory";
    break;
  case Kind::TensorMemory:
    OS << "#ttng.tensor_memory_encoding<blockM = " << BlockM
       << ", blockN = " << BlockN << ", colStride = " << ColStride;
    if (CTASplitM != 1)
      OS << ", CTASplitM = " << CTASplitM;
    if (CTASplitN != 1)
      OS << ", CTASplitN = " << CTASplitN;
    if (TwoCTAs)
      OS << ", twoCTAs = true";
    OS << ">";
    break;
  case Kind::TensorMemoryScales:
    OS << "#ttng.tensor_memory_scales_encoding";
    if (CTASplitM != 1 || CTASplitN != 1)
      OS << "<CTASplitM = " << CTASplitM << ", CTASplitN = " << CTASplitN
         << ">";
    break;
  case Kind::Other:
    OS << "#" << Name;
    break;
  }
  return S;
}

Expected<Layout> parseLayout(const Attribute &A, const TtgirModule &M) {
  Layout L;
  if (A.K != Attribute::Kind::Dialect) {
    L.Name = A.str();
    return L;
  }
  L.Name = A.Spelling.str();
  for (const LayoutKindReader &K : LayoutKinds)
    if (A.Spelling == K.Name) {
      L.K = K.K;
      Reader R(A, M);
      if (K.Read)
        if (Error E = K.Read(R, L))
          return E;
      break;
    }
  return L;
}

Expected<Layout> parseLayoutText(StringRef AttributeText) {
  // An alias definition in an otherwise empty module: the attribute parser
  // and the checks are the ones every .ttgir goes through.
  std::string Text =
      ("#layout = " + AttributeText.trim() + "\nmodule {\n}\n").str();
  Expected<std::unique_ptr<TtgirModule>> M = parseTtgirText(Text, "<layout>");
  if (!M)
    return M.takeError();
  const Attribute *A = (*M)->attributeAlias("#layout");
  if (!A) // `loc(...)` reads as a location alias, not an attribute
    return inputError("<layout>", 1, strlen("#layout = ") + 1,
                      "expected a layout attribute, not '" +
                          AttributeText.trim() + "'");
  return parseLayout(*A, **M);
}

Expected<LinearLayout> toLinearLayout(const Layout &L,
                                      ArrayRef<int64_t> Shape) {
  Expected<LinearLayout> Out = toLinear(L, Shape);
  if (!Out)
    return Out.takeError();
  // Sizes are int32, as in Triton: an input dim of 2^31 or more values
  // (a #ttg.linear of 25 register and 19 warp bases, broadcast over a
  // shape) is no layout a CTA runs, and its size would not fit.
  for (const LinearLayout::InDim &D : Out->ins())
    if (D.Bases.size() > 30)
      return llError(L.Name + " needs 2^" + Twine(D.Bases.size()) + " " +
                     D.Name + " values on this shape: more than a CTA holds");
  return Out;
}

Expected<SharedLinearLayout> linearLayoutOf(const Layout &L,
                                            ArrayRef<int64_t> Shape) {
  // At most 4096 of them, about a KB each: more distinct (layout, shape)
  // pairs than the team's largest survey held, in a bounded footprint.
  static AlgebraMemo<SharedLinearLayout> Memo(1 << 12);
  return Memo.get('l', L, Shape, [&]() -> Expected<SharedLinearLayout> {
    Expected<LinearLayout> LL = toLinearLayout(L, Shape);
    if (!LL)
      return LL.takeError();
    return std::make_shared<const LinearLayout>(std::move(*LL));
  });
}

std::string canonicalLayoutText(const Attribute &A, const TtgirModule &M) {
  Expected<Layout> L = parseLayout(A, M);
  if (!L) {
    consumeError(L.takeError());
    return A.str();
  }
  if (L->K == Layout::Kind::Other)
    return A.str();
  return L->canonicalText();
}

Expected<bool> areEquivalent(const Layout &A, const Layout &B,
                             ArrayRef<int64_t> Shape) {
  static AlgebraMemo<bool> Memo;
  return Memo.get('e', A, B, Shape, [&]() -> Expected<bool> {
    Expected<SharedLinearLayout> LA = linearLayoutOf(A, Shape);
    if (!LA)
      return LA.takeError();
    Expected<SharedLinearLayout> LB = linearLayoutOf(B, Shape);
    if (!LB)
      return LB.takeError();
    return **LA == **LB;
  });
}

} // namespace gestell
