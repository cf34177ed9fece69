//===- LayoutConversion.cpp - Cost of convert_layout, TMEM compatibility --===//
//
// The cost class follows Triton 3.6's lowering of ttg.convert_layout
// (ConvertLayoutOpToLLVM.cpp with lib/Analysis/Utility.cpp):
//
//   conversion = minimalCvtLayout(src, dst): dst.invertAndCompose(src),
//                quotiented by block, then warp, lane, register while each
//                is left alone (stopping at the first that moves)
//   block in it    -> across CTAs (not lowered by 3.6): shared
//   warp in it     -> transferWithinBlockSwizzling: shared memory
//   lane in it     -> cvtNeedsWarpShuffle ? transferWithinWarp (shuffles)
//                                         : shared memory
//   register in it -> transferWithinThread: registers
//   nothing        -> the op is a no-op: registers
//
// cvtNeedsWarpShuffle asks getWarpLayoutConvertDecomposition for the
// register/lane permutation P = P_mixed . P_lane . P_reg and accepts it when
// P_mixed has fewer than two register<->lane transpositions; we compute the
// same factorization (same cycle walk, same filling of broadcast bits).
//
// TMEM compatibility follows computeTMemLdStEncodingInfo (TensorMemoryUtils
// of 3.6): the register layout, composed with the inverse of the TMEM
// layout, must map warps 0-3 to row 32/64 and be divisible by one of the
// tcgen05.ld/st message tiles (32x32b, 16x256b, 16x64b, 16x128b, or
// 16x32bx2 with a non-zero second-half offset), after packing sub-32-bit
// elements.
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/Layout.h"
#include "layout/AlgebraMemo.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace gestell {

namespace {

using LL = LinearLayout;

Error convError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// Number of register<->lane transpositions in Triton's factorization of the
/// register/lane permutation between two layouts (nullopt: the two layouts
/// do not define a permutation of register and lane bits).
std::optional<unsigned> mixedTranspositions(const LL &SrcFull,
                                            const LL &DstFull) {
  LL Src = removeBroadcastRegisters(SrcFull).apply(SrcFull);
  LL Dst = removeBroadcastRegisters(DstFull).apply(DstFull);
  int NSrcReg = Src.inDimSizeLog2("register");
  int NDstReg = Dst.inDimSizeLog2("register");
  int NSrcLane = Src.inDimSizeLog2("lane");
  int NDstLane = Dst.inDimSizeLog2("lane");
  int NReg = std::max(NSrcReg, NDstReg);
  int NLane = std::max(NSrcLane, NDstLane);
  std::vector<std::string> InNames = {"register", "lane"};
  std::vector<std::string> OutNames = Src.outDimNames();
  LL S = Src.sublayout(InNames, OutNames);
  LL T = Dst.sublayout(InNames, OutNames);
  auto Pad = [&](const LL &L) {
    std::vector<LL::InDim> Ins(L.ins().begin(), L.ins().end());
    for (LL::InDim &D : Ins) {
      int Want = D.Name == "register" ? NReg : NLane;
      while (int(D.Bases.size()) < Want)
        D.Bases.push_back(LL::Basis(OutNames.size(), 0));
    }
    return LL(std::move(Ins),
              std::vector<LL::OutDim>(L.outs().begin(), L.outs().end()));
  };
  S = Pad(S);
  T = Pad(T);
  std::optional<LL> PL = S.invertAndCompose(T);
  if (!PL)
    return std::nullopt;
  // P's bases as (dimIdx, bit) pairs: dimIdx 0 = register, 1 = lane.
  std::vector<std::vector<LL::Basis>> P(2);
  for (int Dim = 0; Dim < 2; ++Dim)
    P[Dim].assign(PL->bases(InNames[Dim]).begin(),
                  PL->bases(InNames[Dim]).end());
  LL SF = S.flattenOuts(), TF = T.flattenOuts();
  std::vector<std::pair<int, int>> SrcFree, DstFree;
  for (int Dim = 0; Dim < 2; ++Dim)
    for (int I = 0; I < SF.inDimSizeLog2(InNames[Dim]); ++I) {
      int32_t SV = SF.bases(InNames[Dim])[I][0];
      int32_t TV = TF.bases(InNames[Dim])[I][0];
      if (SV == 0 && TV == 0)
        P[Dim][I][Dim] = int32_t(1) << I;
      else if (SV == 0)
        SrcFree.push_back({Dim, I});
      else if (TV == 0)
        DstFree.push_back({Dim, I});
    }
  for (size_t K = 0; K < std::min(SrcFree.size(), DstFree.size()); ++K)
    P[SrcFree[K].first][SrcFree[K].second][DstFree[K].first] =
        int32_t(1) << DstFree[K].second;

  // Walk the cycles of P; every maximal run of lane bits entered from a
  // register bit and left to a register bit is one mixed transposition.
  auto Flat = [&](int Dim, int Idx) { return Dim == 0 ? Idx : NReg + Idx; };
  BitVector Visited(NReg + NLane);
  unsigned Mixed = 0;
  for (int Dim = 0; Dim < 2; ++Dim)
    for (int I = 0; I < (Dim == 0 ? NReg : NLane); ++I) {
      if (Visited.test(Flat(Dim, I)))
        continue;
      int CurDim = Dim, CurIdx = I;
      bool SawRegToLane = false;
      int Steps = 0;
      do {
        if (++Steps > NReg + NLane + 1)
          return std::nullopt; // not a permutation
        Visited.set(Flat(CurDim, CurIdx));
        const LL::Basis &Next = P[CurDim][CurIdx];
        int NextDim = -1, NextIdx = 0;
        for (int K = 0; K < int(Next.size()); ++K)
          if (Next[K] != 0) {
            NextDim = K;
            NextIdx = Log2_32(uint32_t(Next[K]));
          }
        if (NextDim < 0)
          return std::nullopt;
        if (CurDim == 0 && NextDim == 1)
          SawRegToLane = true;
        else if (CurDim == 1 && NextDim == 0) {
          // Triton records a transposition when a lane run returns to a
          // register after having left one.
          if (SawRegToLane)
            ++Mixed;
          SawRegToLane = false;
        }
        CurDim = NextDim;
        CurIdx = NextIdx;
      } while (Flat(CurDim, CurIdx) != Flat(Dim, I));
    }
  return Mixed;
}

//===----------------------------------------------------------------------===//
// TMEM
//===----------------------------------------------------------------------===//

enum class Atom { I32x32b, I16x64b, I16x128b, I16x256b, I16x32bx2 };

LL tileLayout(Atom A, bool Unpacked) {
  LL Tile = LL::inferOutSizes({{"register", {}}, {"lane", {}}}, {"row", "col"});
  if (Unpacked)
    Tile *= LL::zeros1D(1, "register", "col", 2);
  switch (A) {
  case Atom::I32x32b:
    Tile *= LL::identity1D(32, "lane", "row");
    break;
  case Atom::I16x32bx2:
    Tile *= LL::identity1D(16, "lane", "row");
    break;
  case Atom::I16x64b:
    Tile *= LL::inferOutSizes(
        {{"lane", {{8, 0}, {0, 1}, {1, 0}, {2, 0}, {4, 0}}}}, {"row", "col"});
    break;
  case Atom::I16x128b:
    Tile *= LL::identity1D(4, "lane", "col") *
            LL::identity1D(8, "lane", "row") *
            LL::identity1D(2, "register", "row");
    break;
  case Atom::I16x256b:
    Tile *= LL::identity1D(2, "register", "col") *
            LL::identity1D(4, "lane", "col") *
            LL::identity1D(8, "lane", "row") *
            LL::identity1D(2, "register", "row");
    break;
  }
  // With warps: warp 0/1 bits select rows 32 and 64.
  std::vector<LL::InDim> Ins(Tile.ins().begin(), Tile.ins().end());
  Ins.push_back({"warp", {{32, 0}, {64, 0}}});
  return LL(std::move(Ins), {{"row", 128}, {"col", Tile.outDimSize("col")}});
}

/// Triton's getReps: the tile must be the leading bases of every input dim
/// of Cvt, and the remaining bases must not touch the tile's bits.
std::optional<LL> reps(const LL &Cvt, const LL &Tile) {
  std::vector<std::string> Outs = Cvt.outDimNames();
  std::vector<int32_t> Mask(Outs.size(), 0);
  for (const LL::InDim &D : Tile.ins())
    for (size_t B = 0; B < D.Bases.size(); ++B)
      for (size_t O = 0; O < Outs.size(); ++O)
        Mask[O] |= Tile.basis(D.Name, B, Outs[O]);
  std::vector<LL::InDim> Ins;
  for (const LL::InDim &D : Cvt.ins()) {
    int InA = D.Bases.size(), InB = Tile.inDimSizeLog2(D.Name);
    if (InB > InA)
      return std::nullopt;
    LL::InDim R{D.Name, {}};
    for (int I = 0; I < InA; ++I) {
      for (size_t O = 0; O < Outs.size(); ++O) {
        int32_t V = Cvt.basis(D.Name, I, Outs[O]);
        if (I < InB ? V != Tile.basis(D.Name, I, Outs[O])
                    : (Mask[O] && (V & Mask[O])))
          return std::nullopt;
      }
      R.Bases.push_back(I < InB ? LL::Basis(Outs.size(), 0) : D.Bases[I]);
    }
    Ins.push_back(std::move(R));
  }
  return LL(std::move(Ins),
            std::vector<LL::OutDim>(Cvt.outs().begin(), Cvt.outs().end()));
}

/// getVec at its smallest vectorization: can Cvt be tiled by Tile at all?
std::optional<LL> tileReps(const LL &Cvt, const LL &Tile, int MaxNReg) {
  int MaxReg = MaxNReg / 2;
  if (MaxNReg == 256 && Cvt.inDimSize("register") > MaxReg)
    MaxReg /= 2;
  if (MaxReg / Tile.inDimSize("register") < 1)
    return std::nullopt;
  std::optional<RegisterAction> Perm =
      registerPermutationForDivide(Cvt, Tile, /*Left=*/true);
  if (!Perm)
    return std::nullopt;
  return reps(Perm->apply(Cvt), Tile);
}

bool lowerTmem(const LL &Cvt, int MaxNReg, unsigned Bitwidth, bool IsScales,
               bool Unpacked, int Depth = 0) {
  if (Depth > 8)
    return false;
  RegisterAction Drop = removeBroadcastRegisters(Cvt);
  if (!Drop.isIdentity())
    return lowerTmem(Drop.apply(Cvt), MaxNReg, Bitwidth, IsScales, Unpacked,
                     Depth + 1);
  if (Bitwidth < 32) {
    std::optional<LL> Quot;
    int BestContig = 1;
    for (int Contig = 1; int(Bitwidth) * Contig <= 32; Contig *= 2) {
      std::optional<LL> Q =
          divideLeft(Cvt, LL::identity1D(Contig, "register", "col"));
      if (!Q)
        break;
      Quot = Q;
      BestContig = Contig;
    }
    unsigned NewBitwidth = Bitwidth;
    if (BestContig > 1) {
      Unpacked = false;
      NewBitwidth = Bitwidth * BestContig;
    } else if (std::optional<LL> Q = divideLeft(
                   Cvt, LL::zeros1D(1, "register", "col", 32 / Bitwidth) *
                            LL::identity1D(2, "register", "col"));
               Bitwidth == 16 && Q) {
      Unpacked = true;
      Quot = Q;
      NewBitwidth = 32;
    } else if (std::optional<LL> Q = divideLeft(
                   Cvt, LL::zeros1D(1, "register", "col", 32 / Bitwidth))) {
      Unpacked = Bitwidth == 16;
      Quot = Q;
      NewBitwidth = 32;
    } else {
      return false;
    }
    if (!Quot)
      return false;
    LL Next = *Quot;
    if (Unpacked)
      Next = LL::zeros1D(1, "register", "col", 32 / Bitwidth) * Next;
    return lowerTmem(Next, MaxNReg, NewBitwidth, IsScales, Unpacked, Depth + 1);
  }
  for (Atom A : {Atom::I32x32b, Atom::I16x256b, Atom::I16x64b, Atom::I16x128b})
    if (tileReps(Cvt, tileLayout(A, Unpacked), MaxNReg))
      return true;
  // 16x32bx2: two 16-row halves, the second at an offset given by lane 16.
  std::optional<LL> R =
      tileReps(Cvt, tileLayout(Atom::I16x32bx2, Unpacked), MaxNReg);
  if (!R)
    return false;
  int32_t Row = R->basis("lane", 4, "row"), Col = R->basis("lane", 4, "col");
  if (R->inDimSizeLog2("lane") <= 4)
    Row = Col = 0;
  // An offset of 0 only works for scales (the allocation is padded).
  return (Row << 16 | Col) != 0 || IsScales;
}

} // namespace

StringRef costName(ConversionCost C) {
  switch (C) {
  case ConversionCost::Registers:
    return "registers";
  case ConversionCost::Shuffle:
    return "shuffle";
  case ConversionCost::Shared:
    return "shared";
  }
  return "shared";
}

namespace {
Expected<ConversionAnalysis> computeConversion(const Layout &Src,
                                               const Layout &Dst,
                                               ArrayRef<int64_t> Shape) {
  Expected<SharedLinearLayout> SrcLL = linearLayoutOf(Src, Shape);
  if (!SrcLL)
    return SrcLL.takeError();
  const LL *S = SrcLL->get();
  Expected<SharedLinearLayout> DstLL = linearLayoutOf(Dst, Shape);
  if (!DstLL)
    return DstLL.takeError();
  const LL *D = DstLL->get();
  std::optional<LL> Comp = D->invertAndCompose(*S);
  if (!Comp)
    return convError("the layouts do not hold the same tensor");
  // Quotient by the trailing input dims both layouts share, slowest first.
  std::vector<std::string> SN = S->inDimNames(), DN = D->inDimNames();
  for (size_t K = 0; K < std::min(SN.size(), DN.size()); ++K) {
    const std::string &Dim = SN[SN.size() - 1 - K];
    if (Dim != DN[DN.size() - 1 - K])
      break;
    std::optional<LL> Q = Comp->quotient({Dim});
    if (!Q)
      break;
    Comp = std::move(Q);
  }
  ConversionAnalysis A;
  for (const std::string &N : Comp->inDimNames())
    A.MovingDims.push_back(N);
  auto Has = [&](StringRef N) { return is_contained(A.MovingDims, N); };
  if (Has("block") || Has("warp")) {
    A.Cost = ConversionCost::Shared;
  } else if (Has("lane")) {
    std::optional<unsigned> M = mixedTranspositions(*S, *D);
    A.MixedTranspositions = M.value_or(~0u);
    A.Cost = M && *M < 2 ? ConversionCost::Shuffle : ConversionCost::Shared;
  } else {
    A.Cost = ConversionCost::Registers;
  }
  return A;
}
} // namespace

Expected<ConversionAnalysis> analyzeConversion(const Layout &Src,
                                               const Layout &Dst,
                                               ArrayRef<int64_t> Shape) {
  static AlgebraMemo<ConversionAnalysis> Memo;
  return Memo.get('c', Src, Dst, Shape,
                  [&] { return computeConversion(Src, Dst, Shape); });
}

namespace {
Expected<bool> computeTmemCompatible(const Layout &Reg,
                                     ArrayRef<int64_t> RegShape,
                                     unsigned ElementBitWidth,
                                     const Layout &Mem,
                                     ArrayRef<int64_t> MemShape, int MaxNReg) {
  if (Mem.K != Layout::Kind::TensorMemory &&
      Mem.K != Layout::Kind::TensorMemoryScales)
    return convError("not a tensor memory encoding: " + Mem.Name);
  if (MemShape.size() < 2)
    return convError("tensor memory descriptors are at least 2D");
  Expected<SharedLinearLayout> RegLL = linearLayoutOf(Reg, RegShape);
  if (!RegLL)
    return RegLL.takeError();
  const LL *R = RegLL->get();
  Expected<SharedLinearLayout> MemLL =
      linearLayoutOf(Mem, MemShape.take_back(2));
  if (!MemLL)
    return MemLL.takeError();
  const LL *M = MemLL->get();
  std::optional<LL> Cvt = R->invertAndCompose(*M);
  if (!Cvt)
    return false;
  // Warps 0-3 must sit on rows 32 and 64 (with or without broadcasting).
  ArrayRef<LL::Basis> Warps = R->bases("warp");
  ArrayRef<LL::Basis> Rows = M->bases("row");
  if (Warps.size() < 2 || Rows.size() < 7 || Warps[0] != Rows[5] ||
      Warps[1] != Rows[6])
    return false;
  std::vector<LL::InDim> Ins(Cvt->ins().begin(), Cvt->ins().end());
  for (LL::InDim &D : Ins)
    if (D.Name == "warp") {
      D.Bases[0] = {32, 0};
      D.Bases[1] = {64, 0};
    }
  LL Fixed(std::move(Ins),
           std::vector<LL::OutDim>(Cvt->outs().begin(), Cvt->outs().end()));
  bool IsScales = Mem.K == Layout::Kind::TensorMemoryScales;
  return lowerTmem(Fixed, MaxNReg, ElementBitWidth, IsScales,
                   /*Unpacked=*/false);
}
} // namespace

Expected<bool> isTmemCompatible(const Layout &Reg, ArrayRef<int64_t> RegShape,
                                unsigned ElementBitWidth, const Layout &Mem,
                                ArrayRef<int64_t> MemShape, int MaxNReg) {
  // An element type the reader does not size (width 0) has no message
  // layout to compare with.
  if (ElementBitWidth == 0)
    return createStringError(inconvertibleErrorCode(),
                             "the element type's width is not known");
  // Kernels of one cache store the same few register layouts to the same
  // tensor memory: the answer is kept per process, as a conversion's is.
  // Both shapes, each after its length, then the element width and the
  // register limit, are the memo's "shape".
  SmallVector<int64_t, 12> Key;
  Key.push_back(RegShape.size());
  Key.append(RegShape.begin(), RegShape.end());
  Key.push_back(MemShape.size());
  Key.append(MemShape.begin(), MemShape.end());
  Key.push_back(ElementBitWidth);
  Key.push_back(MaxNReg);
  static AlgebraMemo<bool> Memo;
  return Memo.get('t', Reg, Mem, Key, [&] {
    return computeTmemCompatible(Reg, RegShape, ElementBitWidth, Mem, MemShape,
                                 MaxNReg);
  });
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

namespace {

class Verifier {
public:
  explicit Verifier(const TtgirModule &M) : M(M), Ctx(LayoutContext::of(M)) {}

  Error run();

private:
  const TtgirModule &M;
  LayoutContext Ctx;
  DenseMap<const Attribute *, std::shared_ptr<Layout>> Cache;
  /// The warps the ops of a region run with (lookupNumWarps: the same for
  /// every op of the region).
  DenseMap<const Region *, int> WarpsIn;
  /// (type, warps; 0 = not checked against warps) pairs that passed: types
  /// are uniqued, so most ops repeat one.
  DenseSet<std::pair<const Type *, int>> Passed;
  /// (register type, memory type) pairs that checkTmem passed.
  DenseSet<std::pair<const Type *, const Type *>> TmemPassed;

  int warpsAt(const Operation &Op) {
    const Region *R = Op.ParentBlock ? Op.ParentBlock->Parent : nullptr;
    auto [It, New] = WarpsIn.try_emplace(R, 0);
    if (New)
      It->second = lookupNumWarps(Op, M);
    return It->second;
  }

  Expected<const Layout *> layout(const Attribute &A) {
    auto It = Cache.find(&A);
    if (It != Cache.end())
      return It->second.get();
    Expected<Layout> L = parseLayout(A, M);
    if (!L)
      return L.takeError();
    auto P = std::make_shared<Layout>(std::move(*L));
    Cache[&A] = P;
    return P.get();
  }
  Error at(const Operation &Op, const Twine &Msg) {
    return inputError(M.Path, Op.Line, Op.Column, Msg);
  }
  Error checkContext(const Operation &Op, const Layout &L, int Want);
  Error checkType(const Operation &Op, const Type *T, bool Context = true);
  Error checkTmem(const Operation &Op, const Type *RegTy, const Type *MemTy);
};

/// Warps, lanes and CTAs a distributed layout spans.
void spans(const Layout &L, unsigned &Warps, unsigned &Lanes, unsigned &Ctas) {
  auto Prod = [](ArrayRef<unsigned> V) {
    unsigned P = 1;
    for (unsigned X : V)
      P *= X;
    return P;
  };
  switch (L.K) {
  case Layout::Kind::Blocked:
    Warps = Prod(L.WarpsPerCTA);
    Lanes = Prod(L.ThreadsPerWarp);
    Ctas = L.numCtas();
    return;
  case Layout::Kind::NvidiaMma:
    Warps = Prod(L.WarpsPerCTA);
    Lanes = 32;
    Ctas = L.numCtas();
    return;
  case Layout::Kind::Linear:
    Warps = 1u << L.Linear.bases("warp").size();
    Lanes = 1u << L.Linear.bases("lane").size();
    Ctas = 1u << L.Linear.bases("block").size();
    return;
  case Layout::Kind::Slice:
  case Layout::Kind::DotOperand:
    spans(*L.Parent, Warps, Lanes, Ctas);
    return;
  default:
    Warps = Lanes = Ctas = 0;
  }
}

Error Verifier::checkContext(const Operation &Op, const Layout &L, int Want) {
  unsigned Warps = 0, Lanes = 0, Ctas = 0;
  spans(L, Warps, Lanes, Ctas);
  if (!Warps)
    return Error::success();
  if (int(Warps) != Want)
    return at(Op, "layout " + L.canonicalText() + " has a total of " +
                      Twine(Warps) + " warps per CTA, but the " +
                      (Want == Ctx.NumWarps ? "module requires " + Twine(Want) +
                                                  " (ttg.num-warps)"
                                            : "warp_specialize partition "
                                              "runs with " +
                                                  Twine(Want)));
  if (int(Lanes) != Ctx.ThreadsPerWarp)
    return at(Op, "layout " + L.canonicalText() + " has " + Twine(Lanes) +
                      " threads per warp, but the module requires " +
                      Twine(Ctx.ThreadsPerWarp) + " (ttg.threads-per-warp)");
  if (int(Ctas) != Ctx.NumCtas)
    return at(Op, "layout " + L.canonicalText() + " spans " + Twine(Ctas) +
                      " CTAs, but the module requires " + Twine(Ctx.NumCtas) +
                      " (ttg.num-ctas)");
  return Error::success();
}

Error Verifier::checkType(const Operation &Op, const Type *T, bool Context) {
  if (!T || !T->Encoding ||
      (T->K != Type::Kind::Tensor && T->K != Type::Kind::MemDesc))
    return Error::success();
  int Want = Context ? warpsAt(Op) : 0;
  if (Passed.contains({T, Want}))
    return Error::success();
  Expected<const Layout *> L = layout(*T->Encoding);
  if (!L)
    return L.takeError();
  if ((*L)->K != Layout::Kind::Other && T->K == Type::Kind::Tensor) {
    unsigned Rank = (*L)->rank();
    if (!(*L)->isDistributed())
      return at(Op, "tensor type " + T->Text.str() +
                        " has a non-register encoding");
    if (Rank != T->Shape.size())
      return at(Op, "layout " + (*L)->canonicalText() + " has rank " +
                        Twine(Rank) + " but the tensor " + T->Text +
                        " has rank " + Twine(T->Shape.size()));
    if (Context)
      if (Error E = checkContext(Op, **L, Want))
        return E;
  }
  Passed.insert({T, Want});
  return Error::success();
}

Error Verifier::checkTmem(const Operation &Op, const Type *RegTy,
                          const Type *MemTy) {
  if (!RegTy || !MemTy || RegTy->K != Type::Kind::Tensor ||
      MemTy->K != Type::Kind::MemDesc || !RegTy->Encoding || !MemTy->Encoding)
    return Error::success();
  // Types are uniqued: the ops of a pipeline repeat one pair.
  if (TmemPassed.contains({RegTy, MemTy}))
    return Error::success();
  Expected<const Layout *> R = layout(*RegTy->Encoding);
  if (!R)
    return R.takeError();
  Expected<const Layout *> Mem = layout(*MemTy->Encoding);
  if (!Mem)
    return Mem.takeError();
  // Checked where the model is backed by the compiler's output (one CTA,
  // 2D tiles, no scales, an element type the reader sizes); elsewhere a
  // doubt must not reject a kernel.
  if ((*Mem)->K != Layout::Kind::TensorMemory || RegTy->Shape.size() != 2 ||
      MemTy->elementBitWidth() == 0)
    return Error::success();
  if (!(*R)->isDistributed())
    return Error::success();
  ArrayRef<int64_t> MemShape =
      MemTy->AllocShape.empty() ? MemTy->Shape : MemTy->AllocShape;
  Expected<bool> Ok =
      isTmemCompatible(**R, RegTy->Shape, MemTy->elementBitWidth(), **Mem,
                       MemShape, Ctx.MaxNReg);
  if (!Ok)
    return at(Op, "cannot map the register layout onto tensor memory: " +
                      toString(Ok.takeError()));
  if (!*Ok)
    return at(Op, "the register layout " + (*R)->canonicalText() + " of " +
                      RegTy->Text + " is not compatible with tensor memory " +
                      (*Mem)->canonicalText() + " (" + Op.Name + ")");
  TmemPassed.insert({RegTy, MemTy});
  return Error::success();
}

Error Verifier::run() {
  // The module's warp, lane and CTA counts, which every layout is checked
  // against, must be plausible numbers.
  if (const Operation *Mod = M.module())
    for (StringRef Key : {"ttg.num-warps", "ttg.threads-per-warp",
                          "ttg.num-ctas", "ttg.maxnreg"})
      if (const Attribute *A = Mod->attr(Key))
        if (A->K == Attribute::Kind::Integer &&
            (A->Int < 1 || A->Int > (1 << 16)))
          return at(*Mod, Key + " = " + A->Spelling +
                              " is not a count from 1 to 65536");
  // Every layout alias must be well formed, used or not.
  for (StringRef Name : M.attributeAliasNames())
    if (const Attribute *A = M.attributeAlias(Name))
      if (Expected<const Layout *> L = layout(*A); !L)
        return L.takeError();
  for (const Operation *Op : M.ops()) {
    for (const Value *V : Op->Results)
      if (Error E = checkType(*Op, V->Ty))
        return E;
    // Block arguments: checked against the warps of the region they are in
    // (a warp_specialize partition's captures are the enclosing values).
    for (const Region *R : Op->Regions)
      for (const Block *B : R->Blocks)
        for (const Value *V : B->Args)
          if (Error E = checkType(
                  *Op, V->Ty,
                  !(Op->Name == "ttg.warp_specialize" && R->Index > 0)))
            return E;
    if (Op->Name == "ttg.convert_layout" && !Op->Operands.empty()) {
      const Type *S = Op->operandType(0), *D = Op->resultType();
      if (S && D && S->K == Type::Kind::Tensor && D->K == Type::Kind::Tensor &&
          (S->Shape != D->Shape || S->Element != D->Element))
        return at(*Op, "ttg.convert_layout changes the tensor: " + S->Text +
                           " -> " + D->Text);
    }
    if (Op->Name == "ttng.tmem_store" && Op->Operands.size() >= 2)
      if (Error E = checkTmem(*Op, Op->operandType(0), Op->operandType(1)))
        return E;
    if (Op->Name == "ttng.tmem_load" && !Op->Operands.empty())
      if (Error E = checkTmem(*Op, Op->resultType(), Op->operandType(0)))
        return E;
    if (Op->Name == "ttng.tmem_alloc" && !Op->Operands.empty())
      if (Error E = checkTmem(*Op, Op->operandType(0), Op->resultType()))
        return E;
  }
  return Error::success();
}

} // namespace

Error verifyLayouts(const TtgirModule &M) { return Verifier(M).run(); }

} // namespace gestell
