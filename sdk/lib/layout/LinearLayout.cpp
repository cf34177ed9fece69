//===- LinearLayout.cpp - Linear layouts over GF(2) -----------------------===//
//
// Matrices are kept as one uint64_t per output bit (row), one bit per input
// bit (column), in the order of the dims: layouts here never exceed 64 bits
// on either side (a CTA has at most 2^16 elements per tensor dim in practice;
// anything larger is rejected by the callers). Row reduction is the unique
// reduced row echelon form with pivots taken from the lowest column up,
// which is what makes our least-squares inverse equal to Triton's.
//
//===----------------------------------------------------------------------===//
#include "gestell/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace llvm;

namespace gestell {

namespace {

/// The shortest list containing both X and Y as subsequences, preferring X's
/// order when both allow either (Triton's `supremum`). Lists that disagree
/// on the relative order of common names are merged X-first.
std::vector<std::string> supremum(const std::vector<std::string> &X,
                                  const std::vector<std::string> &Y) {
  std::vector<std::string> Out;
  Out.reserve(X.size() + Y.size());
  auto Has = [&](const std::string &S) { return is_contained(Out, S); };
  auto Pos = [](const std::vector<std::string> &V, const std::string &S) {
    auto It = std::find(V.begin(), V.end(), S);
    return It == V.end() ? -1 : int(It - V.begin());
  };
  size_t I = 0, J = 0;
  const int Inf = std::numeric_limits<int>::max();
  while (I < X.size() || J < Y.size()) {
    while (I < X.size() && Has(X[I]))
      ++I;
    while (J < Y.size() && Has(Y[J]))
      ++J;
    if (I >= X.size() && J >= Y.size())
      break;
    if (I < X.size() && J < Y.size() && X[I] == Y[J]) {
      Out.push_back(X[I]);
      ++I, ++J;
      continue;
    }
    int CandX = Inf, CandY = Inf;
    if (I < X.size()) {
      int P = Pos(Y, X[I]);
      if (P >= int(J))
        CandX = P;
    }
    if (J < Y.size()) {
      int P = Pos(X, Y[J]);
      if (P >= int(I))
        CandY = P;
    }
    if (I < X.size() && CandX == Inf) {
      Out.push_back(X[I++]);
      continue;
    }
    if (J < Y.size() && CandY == Inf) {
      Out.push_back(Y[J++]);
      continue;
    }
    if (CandX <= CandY)
      Out.push_back(X[I++]);
    else
      Out.push_back(Y[J++]);
  }
  return Out;
}

/// Reduced row echelon form over GF(2), pivots from the lowest column up.
void rref(std::vector<uint64_t> &M, int NumCols) {
  size_t R = 0;
  for (int C = 0; C < NumCols && R < M.size(); ++C) {
    uint64_t Bit = uint64_t(1) << C;
    size_t P = R;
    while (P < M.size() && !(M[P] & Bit))
      ++P;
    if (P == M.size())
      continue;
    std::swap(M[R], M[P]);
    for (size_t K = 0; K < M.size(); ++K)
      if (K != R && (M[K] & Bit))
        M[K] ^= M[R];
    ++R;
  }
}

int rank(std::vector<uint64_t> M, int NumCols) {
  rref(M, NumCols);
  int N = 0;
  for (uint64_t Row : M)
    N += Row != 0;
  return N;
}

/// One row per output bit, one column per input bit.
std::vector<uint64_t> matrixOf(const LinearLayout &L) {
  if (L.totalInDimSizeLog2() > 64)
    return {}; // not a layout of one CTA: callers treat it as rank 0
  std::vector<uint64_t> M(L.totalOutDimSizeLog2(), 0);
  int R = 0;
  ArrayRef<LinearLayout::OutDim> Outs = L.outs();
  for (size_t OI = 0; OI < Outs.size(); ++OI) {
    int Bits = Log2_32(Outs[OI].Size);
    int C = 0;
    for (const LinearLayout::InDim &In : L.ins())
      for (const LinearLayout::Basis &Basis : In.Bases) {
        int32_t B = OI < Basis.size() ? Basis[OI] : 0;
        for (int J = 0; J < Bits; ++J)
          M[R + J] |= uint64_t((B >> J) & 1) << C;
        ++C;
      }
    R += Bits;
  }
  return M;
}

/// Least squares over GF(2): the minimal-norm X with A X = B, as a layout
/// from B's inputs to A's inputs. Requires Im(B) within Im(A). B's out dims
/// are A's, in A's order, each at most as large: B's coordinates sit in the
/// low corner of A's (each bit of B's dim d is the same bit of A's dim d).
std::optional<LinearLayout> lstsq(const LinearLayout &A,
                                  const LinearLayout &B) {
  int NumRows = A.totalOutDimSizeLog2();
  int ColsA = A.totalInDimSizeLog2();
  int ColsB = B.totalInDimSizeLog2();
  if (ColsA + ColsB > 64 || NumRows > 64)
    return std::nullopt;
  std::vector<uint64_t> M = matrixOf(A);
  std::vector<uint64_t> MB = matrixOf(B);
  int RowA = 0, RowB = 0;
  for (const LinearLayout::OutDim &O : A.outs()) {
    int BitsA = Log2_32(O.Size), BitsB = Log2_32(B.outDimSize(O.Name));
    for (int R = 0; R < BitsA; ++R, ++RowA)
      if (R < BitsB)
        M[RowA] |= MB[RowB++] << ColsA;
  }
  rref(M, ColsA + ColsB);
  SmallVector<int, 16> Pivots;
  for (uint64_t Row : M) {
    if (!Row)
      continue;
    int C = llvm::countr_zero(Row);
    if (C >= ColsA)
      return std::nullopt; // B reaches what A cannot
    Pivots.push_back(C);
  }
  std::vector<uint64_t> Ret(ColsA, 0);
  for (size_t J = 0; J < Pivots.size(); ++J)
    Ret[Pivots[J]] = M[J] >> ColsA;
  // A flat layout (one input, one output dim), reshaped to the real dims.
  std::string In1 = B.ins().empty() ? "in" : B.ins().front().Name;
  std::string Out1 = A.ins().empty() ? "out" : A.ins().front().Name;
  LinearLayout::InDim Flat{In1, {}};
  Flat.Bases.reserve(ColsB);
  for (int C = 0; C < ColsB; ++C) {
    int32_t V = 0;
    for (int R = 0; R < ColsA; ++R)
      V |= int32_t((Ret[R] >> C) & 1) << R;
    Flat.Bases.push_back({V});
  }
  LinearLayout F({Flat}, {{Out1, int32_t(1) << ColsA}});
  std::vector<std::pair<std::string, int32_t>> InDims, OutDims;
  for (const LinearLayout::InDim &D : B.ins())
    InDims.push_back({D.Name, int32_t(1) << D.Bases.size()});
  for (const LinearLayout::InDim &D : A.ins())
    OutDims.push_back({D.Name, int32_t(1) << D.Bases.size()});
  return F.reshapeIns(InDims).reshapeOuts(OutDims);
}

std::vector<std::string> without(const std::vector<std::string> &All,
                                 ArrayRef<std::string> Drop) {
  std::vector<std::string> Out;
  Out.reserve(All.size());
  for (const std::string &S : All)
    if (!is_contained(Drop, S))
      Out.push_back(S);
  return Out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Construction and shape
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::inferOutSizes(std::vector<InDim> Ins,
                                         ArrayRef<std::string> OutNames) {
  std::vector<OutDim> Outs;
  for (const std::string &N : OutNames)
    Outs.push_back({N, 1});
  for (const InDim &D : Ins)
    for (const Basis &B : D.Bases)
      for (size_t K = 0; K < B.size() && K < Outs.size(); ++K)
        Outs[K].Size = std::max<int32_t>(
            Outs[K].Size, B[K] > 0 ? int32_t(NextPowerOf2(uint32_t(B[K]))) : 1);
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout LinearLayout::identity1D(int32_t Size, StringRef In,
                                      StringRef Out) {
  if (Size == 0)
    return LinearLayout();
  InDim D{In.str(), {}};
  D.Bases.reserve(Log2_32_Ceil(uint32_t(Size)));
  for (int32_t V = 1; V < Size; V *= 2)
    D.Bases.push_back({V});
  return LinearLayout({D}, {{Out.str(), std::max<int32_t>(Size, 1)}});
}

LinearLayout LinearLayout::zeros1D(int32_t Size, StringRef In, StringRef Out,
                                   int32_t OutSize) {
  if (Size == 0)
    return LinearLayout();
  InDim D{In.str(), {}};
  D.Bases.reserve(Log2_32_Ceil(uint32_t(Size)));
  for (int32_t V = 1; V < Size; V *= 2)
    D.Bases.push_back({0});
  return LinearLayout({D}, {{Out.str(), OutSize}});
}

int LinearLayout::findIn(StringRef D) const {
  for (size_t K = 0; K < Ins.size(); ++K)
    if (Ins[K].Name == D)
      return int(K);
  return -1;
}

int LinearLayout::findOut(StringRef D) const {
  for (size_t K = 0; K < Outs.size(); ++K)
    if (Outs[K].Name == D)
      return int(K);
  return -1;
}

std::vector<std::string> LinearLayout::inDimNames() const {
  std::vector<std::string> N;
  N.reserve(Ins.size());
  for (const InDim &D : Ins)
    N.push_back(D.Name);
  return N;
}

std::vector<std::string> LinearLayout::outDimNames() const {
  std::vector<std::string> N;
  N.reserve(Outs.size());
  for (const OutDim &D : Outs)
    N.push_back(D.Name);
  return N;
}

int LinearLayout::inDimSizeLog2(StringRef D) const {
  int K = findIn(D);
  return K < 0 ? 0 : int(Ins[K].Bases.size());
}

int LinearLayout::outDimSizeLog2(StringRef D) const {
  return Log2_32(outDimSize(D));
}

int32_t LinearLayout::outDimSize(StringRef D) const {
  int K = findOut(D);
  return K < 0 ? 1 : Outs[K].Size;
}

int LinearLayout::totalInDimSizeLog2() const {
  int N = 0;
  for (const InDim &D : Ins)
    N += D.Bases.size();
  return N;
}

int LinearLayout::totalOutDimSizeLog2() const {
  int N = 0;
  for (const OutDim &D : Outs)
    N += Log2_32(D.Size);
  return N;
}

ArrayRef<LinearLayout::Basis> LinearLayout::bases(StringRef In) const {
  int K = findIn(In);
  return K < 0 ? ArrayRef<Basis>() : ArrayRef<Basis>(Ins[K].Bases);
}

int32_t LinearLayout::basis(StringRef In, int I, StringRef Out) const {
  int K = findIn(In), O = findOut(Out);
  if (K < 0 || O < 0 || I < 0 || size_t(I) >= Ins[K].Bases.size())
    return 0;
  return Ins[K].Bases[I][O];
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout operator*(const LinearLayout &Inner, const LinearLayout &Outer) {
  std::vector<std::string> InNames =
      supremum(Inner.inDimNames(), Outer.inDimNames());
  std::vector<std::string> OutNames =
      supremum(Inner.outDimNames(), Outer.outDimNames());
  // Each result out dim's index in Inner and in Outer (-1: absent), and
  // the shift of Outer's bases along it.
  SmallVector<int, 4> InnerOut, OuterOut, Shift;
  std::vector<LinearLayout::OutDim> Outs;
  for (const std::string &O : OutNames) {
    int IO = Inner.findOut(O), OO = Outer.findOut(O);
    int LogInner = IO < 0 ? 0 : Log2_32(Inner.Outs[IO].Size);
    int LogOuter = OO < 0 ? 0 : Log2_32(Outer.Outs[OO].Size);
    InnerOut.push_back(IO);
    OuterOut.push_back(OO);
    Shift.push_back(LogInner);
    Outs.push_back({O, int32_t(1) << (LogInner + LogOuter)});
  }
  std::vector<LinearLayout::InDim> Ins;
  Ins.reserve(InNames.size());
  for (const std::string &In : InNames) {
    int II = Inner.findIn(In), OI = Outer.findIn(In);
    LinearLayout::InDim D{In, {}};
    auto Append = [&](const LinearLayout &L, int Dim, ArrayRef<int> OutIdx,
                      bool Shifted) {
      if (Dim < 0)
        return;
      for (const LinearLayout::Basis &B : L.Ins[Dim].Bases) {
        LinearLayout::Basis &N = D.Bases.emplace_back(OutNames.size(), 0);
        for (size_t K = 0; K < OutNames.size(); ++K)
          if (int From = OutIdx[K]; From >= 0 && size_t(From) < B.size())
            N[K] = Shifted ? B[From] << Shift[K] : B[From];
      }
    };
    D.Bases.reserve((II < 0 ? 0 : Inner.Ins[II].Bases.size()) +
                    (OI < 0 ? 0 : Outer.Ins[OI].Bases.size()));
    Append(Inner, II, InnerOut, false);
    Append(Outer, OI, OuterOut, true);
    Ins.push_back(std::move(D));
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout LinearLayout::transposeIns(ArrayRef<std::string> Order) const {
  std::vector<InDim> New;
  for (const std::string &N : Order) {
    int K = findIn(N);
    assert(K >= 0 && "transposeIns: unknown dim");
    if (K >= 0)
      New.push_back(Ins[K]);
  }
  return LinearLayout(std::move(New), Outs);
}

LinearLayout LinearLayout::transposeOuts(ArrayRef<std::string> Order) const {
  std::vector<int> Perm;
  std::vector<OutDim> NewOuts;
  for (const std::string &N : Order) {
    int K = findOut(N);
    assert(K >= 0 && "transposeOuts: unknown dim");
    Perm.push_back(K);
    NewOuts.push_back(K >= 0 ? Outs[K] : OutDim{N, 1});
  }
  std::vector<InDim> New = Ins;
  for (InDim &D : New)
    for (Basis &B : D.Bases) {
      Basis NB;
      for (int K : Perm)
        NB.push_back(K >= 0 ? B[K] : 0);
      B = std::move(NB);
    }
  return LinearLayout(std::move(New), std::move(NewOuts));
}

LinearLayout LinearLayout::reshapeIns(
    ArrayRef<std::pair<std::string, int32_t>> NewIns) const {
  std::vector<Basis> Flat;
  Flat.reserve(totalInDimSizeLog2());
  for (const InDim &D : Ins)
    Flat.insert(Flat.end(), D.Bases.begin(), D.Bases.end());
  std::vector<InDim> New;
  New.reserve(NewIns.size());
  size_t I = 0;
  for (const auto &[Name, Size] : NewIns) {
    InDim D{Name, {}};
    D.Bases.reserve(Log2_32(Size));
    for (int K = 0, N = Log2_32(Size); K < N && I < Flat.size(); ++K)
      D.Bases.push_back(Flat[I++]);
    New.push_back(std::move(D));
  }
  return LinearLayout(std::move(New), Outs);
}

LinearLayout LinearLayout::reshapeOuts(
    ArrayRef<std::pair<std::string, int32_t>> NewOuts) const {
  std::vector<int> Shifts{0};
  for (const OutDim &O : Outs)
    Shifts.push_back(Shifts.back() + Log2_32(O.Size));
  std::vector<InDim> New;
  New.reserve(Ins.size());
  for (const InDim &D : Ins) {
    InDim ND{D.Name, {}};
    ND.Bases.reserve(D.Bases.size());
    for (const Basis &B : D.Bases) {
      int64_t Flat = 0;
      for (size_t K = 0; K < B.size(); ++K)
        Flat += int64_t(B[K]) << Shifts[K];
      Basis NB;
      for (const auto &[Name, Size] : NewOuts) {
        NB.push_back(int32_t(Flat % Size));
        Flat /= Size;
      }
      ND.Bases.push_back(std::move(NB));
    }
    New.push_back(std::move(ND));
  }
  std::vector<OutDim> Os;
  for (const auto &[Name, Size] : NewOuts)
    Os.push_back({Name, Size});
  return LinearLayout(std::move(New), std::move(Os));
}

LinearLayout LinearLayout::flattenIns() const {
  if (Ins.empty())
    return *this;
  return reshapeIns({{Ins.front().Name, int32_t(1) << totalInDimSizeLog2()}});
}

LinearLayout LinearLayout::flattenOuts() const {
  if (Outs.empty())
    return *this;
  return reshapeOuts(
      {{Outs.front().Name, int32_t(1) << totalOutDimSizeLog2()}});
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> InNames,
                                     ArrayRef<std::string> OutNames) const {
  std::vector<int> Keep;
  std::vector<OutDim> NewOuts;
  Keep.reserve(Outs.size());
  NewOuts.reserve(Outs.size());
  for (size_t K = 0; K < Outs.size(); ++K)
    if (is_contained(OutNames, Outs[K].Name)) {
      Keep.push_back(K);
      NewOuts.push_back(Outs[K]);
    }
  std::vector<InDim> New;
  New.reserve(Ins.size());
  for (const InDim &D : Ins) {
    if (!is_contained(InNames, D.Name))
      continue;
    InDim ND{D.Name, {}};
    ND.Bases.reserve(D.Bases.size());
    for (const Basis &B : D.Bases) {
      Basis NB;
      for (int K : Keep)
        NB.push_back(B[K]);
      ND.Bases.push_back(std::move(NB));
    }
    New.push_back(std::move(ND));
  }
  return LinearLayout(std::move(New), std::move(NewOuts));
}

bool LinearLayout::sublayoutIsZero(ArrayRef<std::string> InNames,
                                   ArrayRef<std::string> OutNames) const {
  LinearLayout S = sublayout(InNames, OutNames);
  for (const InDim &D : S.Ins)
    for (const Basis &B : D.Bases)
      if (llvm::any_of(B, [](int32_t V) { return V != 0; }))
        return false;
  return true;
}

bool LinearLayout::squareSublayoutIsIdentity(ArrayRef<std::string> Dims) const {
  if (Dims.empty())
    return true;
  for (const std::string &D : Dims)
    if (!hasInDim(D) || !hasOutDim(D) || inDimSize(D) != outDimSize(D))
      return false;
  LinearLayout S = sublayout(Dims, Dims).flattenIns().flattenOuts();
  if (S.Ins.empty())
    return true;
  const std::vector<Basis> &Bs = S.Ins.front().Bases;
  for (size_t B = 0; B < Bs.size(); ++B)
    if (Bs[B].empty() || Bs[B][0] != (int32_t(1) << B))
      return false;
  return true;
}

bool LinearLayout::isTrivialOver(ArrayRef<std::string> Dims) const {
  for (const std::string &D : Dims)
    if (!hasInDim(D) && !hasOutDim(D))
      return false;
  std::vector<std::string> RestIn = without(inDimNames(), Dims);
  std::vector<std::string> RestOut = without(outDimNames(), Dims);
  return squareSublayoutIsIdentity(Dims) && sublayoutIsZero(RestIn, Dims) &&
         sublayoutIsZero(Dims, RestOut);
}

std::optional<LinearLayout>
LinearLayout::quotient(ArrayRef<std::string> Dims) const {
  if (!isTrivialOver(Dims))
    return std::nullopt;
  return sublayout(without(inDimNames(), Dims), without(outDimNames(), Dims));
}

std::vector<std::pair<std::string, int32_t>>
LinearLayout::apply(ArrayRef<std::pair<std::string, int32_t>> In) const {
  std::vector<std::pair<std::string, int32_t>> Out;
  for (const OutDim &O : Outs) {
    int32_t V = 0;
    for (const auto &[Name, X] : In) {
      int K = findIn(Name);
      if (K < 0)
        continue;
      for (size_t B = 0; B < Ins[K].Bases.size(); ++B)
        if (X & (int32_t(1) << B))
          V ^= basis(Name, B, O.Name);
    }
    Out.push_back({O.Name, V});
  }
  return Out;
}

LinearLayout LinearLayout::compose(const LinearLayout &Outer) const {
  // This's out dim K feeds Outer's input dim InOf[K] (-1: none).
  SmallVector<int, 4> InOf;
  for (const OutDim &O : Outs)
    InOf.push_back(Outer.findIn(O.Name));
  std::vector<InDim> New;
  New.reserve(Ins.size());
  for (const InDim &D : Ins) {
    InDim ND{D.Name, {}};
    ND.Bases.reserve(D.Bases.size());
    for (const Basis &B : D.Bases) {
      Basis &NB = ND.Bases.emplace_back(Outer.Outs.size(), 0);
      for (size_t K = 0; K < Outs.size() && K < B.size(); ++K) {
        if (InOf[K] < 0)
          continue;
        ArrayRef<Basis> OB = Outer.Ins[InOf[K]].Bases;
        for (size_t Bit = 0; Bit < OB.size(); ++Bit)
          if (B[K] & (int32_t(1) << Bit))
            for (size_t O = 0; O < NB.size() && O < OB[Bit].size(); ++O)
              NB[O] ^= OB[Bit][O];
      }
    }
    New.push_back(std::move(ND));
  }
  return LinearLayout(std::move(New), Outer.Outs);
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &Outer) const {
  // Outer may be larger than this along any out dim (Triton 3.6: a TMEM
  // view within its allocation); this then sits in Outer's low corner.
  std::vector<std::string> OutNames = outDimNames();
  for (const OutDim &O : Outer.Outs)
    if (!hasOutDim(O.Name) || outDimSize(O.Name) > O.Size)
      return std::nullopt;
  if (Outer.Outs.size() != Outs.size())
    return std::nullopt;
  const LinearLayout &B = *this;
  LinearLayout A = Outer.transposeOuts(OutNames);
  // Input dims that are the same in both map to themselves: nothing moves
  // along them (Triton's broadcasting heuristic).
  std::vector<std::string> Identity;
  for (const InDim &D : A.Ins)
    if (B.hasInDim(D.Name) &&
        A.sublayout({D.Name}, OutNames) == B.sublayout({D.Name}, OutNames))
      Identity.push_back(D.Name);
  LinearLayout AR = A.sublayout(without(A.inDimNames(), Identity), OutNames);
  LinearLayout BR = B.sublayout(without(B.inDimNames(), Identity), OutNames);
  LinearLayout Ret;
  if (!AR.Ins.empty() || !BR.Ins.empty()) {
    std::optional<LinearLayout> X = lstsq(AR, BR);
    if (!X)
      return std::nullopt;
    Ret = std::move(*X);
  }
  for (const std::string &D : Identity)
    Ret *= identity1D(A.inDimSize(D), D, D);
  return Ret.transposeIns(B.inDimNames()).transposeOuts(A.inDimNames());
}

bool LinearLayout::isSurjective() const {
  return rank(matrixOf(*this), totalInDimSizeLog2()) == totalOutDimSizeLog2();
}

bool LinearLayout::isInjective() const {
  return rank(matrixOf(*this), totalInDimSizeLog2()) == totalInDimSizeLog2();
}

std::optional<LinearLayout> divideLeft(const LinearLayout &A,
                                       const LinearLayout &B) {
  for (const LinearLayout::InDim &D : B.Ins)
    if (!A.hasInDim(D.Name))
      return std::nullopt;
  for (const LinearLayout::OutDim &D : B.Outs)
    if (!A.hasOutDim(D.Name))
      return std::nullopt;
  std::vector<LinearLayout::OutDim> COuts;
  for (const LinearLayout::OutDim &O : A.Outs) {
    int32_t SB = B.outDimSize(O.Name);
    if (O.Size % SB)
      return std::nullopt;
    COuts.push_back({O.Name, O.Size / SB});
  }
  std::vector<LinearLayout::InDim> CIns;
  for (const LinearLayout::InDim &D : A.Ins) {
    int InA = D.Bases.size();
    int InB = B.inDimSizeLog2(D.Name);
    if (InB > InA)
      return std::nullopt;
    for (int K = 0; K < InB; ++K)
      for (const LinearLayout::OutDim &O : A.Outs)
        if (A.basis(D.Name, K, O.Name) != B.basis(D.Name, K, O.Name))
          return std::nullopt;
    LinearLayout::InDim CD{D.Name, {}};
    for (int K = InB; K < InA; ++K) {
      LinearLayout::Basis NB;
      for (const LinearLayout::OutDim &O : A.Outs) {
        int32_t SB = B.outDimSize(O.Name);
        int32_t V = A.basis(D.Name, K, O.Name);
        if (V % SB)
          return std::nullopt;
        NB.push_back(V / SB);
      }
      CD.Bases.push_back(std::move(NB));
    }
    CIns.push_back(std::move(CD));
  }
  LinearLayout C(std::move(CIns), std::move(COuts));
  if (B * C != A) // the dims must also line up in order
    return std::nullopt;
  return C;
}

std::optional<LinearLayout> divideRight(const LinearLayout &A,
                                        const LinearLayout &B) {
  for (const LinearLayout::InDim &D : B.Ins)
    if (!A.hasInDim(D.Name))
      return std::nullopt;
  for (const LinearLayout::OutDim &D : B.Outs)
    if (!A.hasOutDim(D.Name))
      return std::nullopt;
  std::vector<LinearLayout::OutDim> COuts;
  for (const LinearLayout::OutDim &O : A.Outs) {
    int32_t SB = B.outDimSize(O.Name);
    if (O.Size % SB)
      return std::nullopt;
    COuts.push_back({O.Name, O.Size / SB});
  }
  std::vector<LinearLayout::InDim> CIns;
  for (const LinearLayout::InDim &D : A.Ins) {
    int InA = D.Bases.size();
    int InB = B.inDimSizeLog2(D.Name);
    int InC = InA - InB;
    if (InC < 0)
      return std::nullopt;
    LinearLayout::InDim CD{D.Name, {}};
    for (int K = 0; K < InC; ++K) {
      LinearLayout::Basis NB;
      for (const LinearLayout::OutDim &O : A.Outs)
        NB.push_back(A.basis(D.Name, K, O.Name));
      CD.Bases.push_back(std::move(NB));
    }
    for (int K = InC; K < InA; ++K)
      for (const LinearLayout::OutDim &O : B.Outs) {
        int32_t SC = 1;
        for (const LinearLayout::OutDim &CO : COuts)
          if (CO.Name == O.Name)
            SC = CO.Size;
        int32_t V = A.basis(D.Name, K, O.Name);
        if (V % SC || V / SC != B.basis(D.Name, K - InC, O.Name))
          return std::nullopt;
      }
    CIns.push_back(std::move(CD));
  }
  LinearLayout C(std::move(CIns), std::move(COuts));
  if (C * B != A)
    return std::nullopt;
  return C;
}

std::string LinearLayout::str() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << '{';
  ListSeparator LS;
  for (const InDim &D : Ins) {
    OS << LS << D.Name << " = [";
    ListSeparator LB;
    for (const Basis &B : D.Bases) {
      OS << LB << '[';
      ListSeparator LV;
      for (int32_t V : B)
        OS << LV << V;
      OS << ']';
    }
    OS << ']';
  }
  OS << "} -> {";
  ListSeparator LO;
  for (const OutDim &O : Outs)
    OS << LO << O.Name << " = " << O.Size;
  OS << '}';
  return S;
}

//===----------------------------------------------------------------------===//
// Register actions
//===----------------------------------------------------------------------===//

bool RegisterAction::isIdentity() const {
  if (Order.size() != OldCount)
    return false;
  for (unsigned K = 0; K < Order.size(); ++K)
    if (Order[K] != K)
      return false;
  return true;
}

LinearLayout RegisterAction::apply(const LinearLayout &L) const {
  std::vector<LinearLayout::InDim> Ins(L.ins().begin(), L.ins().end());
  for (LinearLayout::InDim &D : Ins) {
    if (D.Name != "register")
      continue;
    std::vector<LinearLayout::Basis> New;
    for (unsigned K : Order)
      New.push_back(D.Bases[K]);
    D.Bases = std::move(New);
  }
  return LinearLayout(std::move(Ins), std::vector<LinearLayout::OutDim>(
                                          L.outs().begin(), L.outs().end()));
}

RegisterAction removeBroadcastRegisters(const LinearLayout &L) {
  RegisterAction A;
  ArrayRef<LinearLayout::Basis> Bs = L.bases("register");
  A.OldCount = Bs.size();
  for (unsigned K = 0; K < Bs.size(); ++K)
    if (llvm::any_of(Bs[K], [](int32_t V) { return V != 0; }))
      A.Order.push_back(K);
  return A;
}

std::optional<RegisterAction>
registerPermutationForDivide(const LinearLayout &A, const LinearLayout &B,
                             bool Left) {
  LinearLayout Broadcast;
  for (const LinearLayout::OutDim &O : A.outs())
    Broadcast *= LinearLayout::identity1D(1, "register", O.Name);
  LinearLayout BB = Broadcast * B;
  ArrayRef<LinearLayout::Basis> ABases = A.bases("register");
  ArrayRef<LinearLayout::Basis> BBases = BB.bases("register");
  std::vector<int> Quot;
  for (const LinearLayout::OutDim &O : A.outs()) {
    int Q = A.outDimSizeLog2(O.Name) - BB.outDimSizeLog2(O.Name);
    if (Q < 0)
      return std::nullopt;
    Quot.push_back(Q);
  }
  std::vector<unsigned> Picked;
  std::vector<bool> Used(ABases.size(), false);
  for (LinearLayout::Basis Want : BBases) {
    if (Want.size() != A.outs().size())
      return std::nullopt;
    if (!Left)
      for (size_t K = 0; K < Want.size(); ++K)
        Want[K] <<= Quot[K];
    bool Found = false;
    for (size_t J = 0; J < ABases.size(); ++J)
      if (!Used[J] && ABases[J] == Want) {
        Picked.push_back(J);
        Used[J] = true;
        Found = true;
        break;
      }
    if (!Found)
      return std::nullopt;
  }
  std::vector<unsigned> Rest;
  for (unsigned J = 0; J < ABases.size(); ++J)
    if (!Used[J])
      Rest.push_back(J);
  RegisterAction R;
  R.OldCount = ABases.size();
  R.Order = Left ? Picked : Rest;
  R.Order.insert(R.Order.end(), (Left ? Rest : Picked).begin(),
                 (Left ? Rest : Picked).end());
  return R;
}

} // namespace gestell
