//===- ModuleConversions.cpp - A module's convert_layout ops --------------===//
#include "gestell/utils/ModuleConversions.h"

#include "gestell/utils/Locate.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace gestell {

std::string Conversion::tensorText() const {
  std::string S;
  for (int64_t D : shape())
    S += std::to_string(D) + "x";
  return S + SrcTy->elementName().str();
}

ModuleConversions::ModuleConversions(const TtgirModule &Mod)
    : M(Mod), Ctx(LayoutContext::of(Mod)) {
  for (const Operation *Op : M.ops()) {
    if (Op->Name != "ttg.convert_layout")
      continue;
    Conversion C;
    C.Op = Op;
    C.SrcTy = Op->operandType(0);
    C.DstTy = Op->resultType();
    if (!C.SrcTy || !C.DstTy || !C.SrcTy->isTensor() || !C.DstTy->isTensor())
      continue;
    C.Src = layout(C.SrcTy->Encoding);
    C.Dst = layout(C.DstTy->Encoding);
    // canonicalLayoutText, without parsing a layout a second time.
    if (C.SrcTy->Encoding)
      C.SrcText = C.Src ? C.Src->canonicalText()
                        : canonicalLayoutText(*C.SrcTy->Encoding, M);
    if (C.DstTy->Encoding)
      C.DstText = C.Dst ? C.Dst->canonicalText()
                        : canonicalLayoutText(*C.DstTy->Encoding, M);
    if (C.Src && C.Dst) {
      Expected<ConversionAnalysis> A =
          analyzeConversion(*C.Src, *C.Dst, C.shape());
      if (A)
        C.Cost = std::move(*A);
      else
        consumeError(A.takeError());
    }
    Index[Op] = Convs.size();
    Convs.push_back(std::move(C));
  }
}

ModuleConversions::~ModuleConversions() = default;

ArrayRef<RedundantConversion> ModuleConversions::redundant() {
  if (!Redundant)
    Redundant = std::make_unique<std::vector<RedundantConversion>>(
        findRedundantConversions(*this));
  return *Redundant;
}

const Conversion *ModuleConversions::of(const Operation *Op) const {
  auto It = Index.find(Op);
  return It == Index.end() ? nullptr : &Convs[It->second];
}

const Layout *ModuleConversions::layout(const Attribute *A) {
  if (!A)
    return nullptr;
  auto [It, New] = Layouts.try_emplace(A);
  if (New) {
    Expected<Layout> L = parseLayout(*A, M);
    if (L && L->K != Layout::Kind::Other)
      It->second = std::make_unique<Layout>(std::move(*L));
    else if (!L)
      consumeError(L.takeError());
  }
  return It->second.get();
}

bool ModuleConversions::equivalent(const Layout &A, const Layout &B,
                                   ArrayRef<int64_t> Shape) const {
  Expected<bool> E = areEquivalent(A, B, Shape);
  if (!E) {
    consumeError(E.takeError());
    return false;
  }
  return *E;
}

bool ModuleConversions::storeAccepts(const Operation &Store,
                                     const Layout &Reg) {
  const Type *Val = Store.operandType(0);
  const Type *Mem = Store.operandType(1);
  if (!Val || !Mem || Mem->K != Type::Kind::MemDesc)
    return false;
  const Layout *ML = layout(Mem->Encoding);
  if (!ML)
    return false;
  ArrayRef<int64_t> MemShape =
      Mem->AllocShape.empty() ? Mem->Shape : Mem->AllocShape;
  Expected<bool> Ok = isTmemCompatible(Reg, Val->Shape, Mem->elementBitWidth(),
                                       *ML, MemShape, Ctx.MaxNReg);
  if (!Ok) {
    consumeError(Ok.takeError());
    return false;
  }
  return *Ok;
}

namespace {
/// A value every layout can have for free: a splat constant or a splat of
/// a scalar is materialized directly in whatever layout its user wants.
bool isLayoutFree(const Value *V) {
  if (!V || !V->Def)
    return !V || !V->Ty || !V->Ty->isTensor();
  StringRef N = V->Def->Name;
  return N == "arith.constant" || N == "tt.splat" ||
         !(V->Ty && V->Ty->isTensor());
}
} // namespace

ElementwiseFlow followElementwise(const Value &V) {
  ElementwiseFlow F;
  SmallVector<const Value *, 8> Work{&V};
  DenseSet<const Value *> InChain{&V};
  DenseSet<const Operation *> Seen;
  while (!Work.empty()) {
    const Value *X = Work.pop_back_val();
    for (const Use &U : X->Uses) {
      const Operation &User = *U.User;
      bool Through = User.isElementwise() && User.Results.size() == 1 &&
                     User.Results[0]->Ty && X->Ty &&
                     User.Results[0]->Ty->Shape == X->Ty->Shape;
      if (!Through) {
        F.Exits.push_back(U);
        continue;
      }
      if (!Seen.insert(&User).second)
        continue;
      F.Chain.push_back(&User);
      const Value *R = User.Results[0];
      if (InChain.insert(R).second)
        Work.push_back(R);
    }
  }
  // Other operands of the chain are judged once the whole chain is known
  // (a binary op may read two values of the chain).
  for (const Operation *Op : F.Chain)
    for (const Value *In : Op->Operands)
      if (!InChain.contains(In) && !isLayoutFree(In))
        F.SelfContained = false;
  // Text order, so that messages and related locations are stable.
  llvm::sort(F.Chain, [](const Operation *A, const Operation *B) {
    return A->Line != B->Line ? A->Line < B->Line : A->Column < B->Column;
  });
  llvm::sort(F.Exits, [](const Use &A, const Use &B) {
    if (A.User->Line != B.User->Line)
      return A.User->Line < B.User->Line;
    if (A.User->Column != B.User->Column)
      return A.User->Column < B.User->Column;
    return A.OperandNo < B.OperandNo;
  });
  return F;
}

bool isMemoryStore(const Use &U) {
  static constexpr StringLiteral Stores[] = {
      "tt.store",
      "tt.descriptor_store",
      "tt.descriptor_scatter",
      "tt.atomic_rmw",
      "tt.atomic_cas",
      "ttg.local_store",
      "ttg.local_alloc",
      "ttng.async_tma_copy_local_to_global"};
  return is_contained(Stores, U.User->Name);
}

DiagLoc ttgirLoc(const TtgirModule &M, const Operation &Op, StringRef What) {
  DiagLoc L = locate(M, Op);
  L.Message = What.str();
  return L;
}

std::optional<DiagLoc> pythonLoc(const TtgirModule &M, const Operation &Op,
                                 StringRef What) {
  // pythonSource names only .py files (never the .ttgir a kernel compiled
  // from IR text points at).
  std::optional<DiagLoc> L = pythonSource(M, Op);
  if (!L)
    return std::nullopt;
  L->Message = What.str();
  return L;
}

const Operation *producerOf(const Value &V) {
  if (V.Def)
    return V.Def;
  if (V.OwnerBlock && V.OwnerBlock->Parent)
    return V.OwnerBlock->Parent->Parent;
  return nullptr;
}

StringRef redundancyName(Redundancy R) {
  switch (R) {
  case Redundancy::Equivalent:
    return "equivalent";
  case Redundancy::TmemStoreFold:
    return "tmem-store";
  case Redundancy::TmemStoreChain:
    return "tmem-store-chain";
  case Redundancy::RoundTrip:
    return "round-trip";
  case Redundancy::Detour:
    return "detour";
  }
  return "";
}

namespace {

/// Every exit of the flow is a tmem_store that accepts the source layout.
bool feedsAcceptingStores(ModuleConversions &Convs, const Conversion &C,
                          const ElementwiseFlow &F) {
  return !F.Exits.empty() && all_of(F.Exits, [&](const Use &U) {
    return U.User->Name == "ttng.tmem_store" && U.OperandNo == 0 &&
           Convs.storeAccepts(*U.User, *C.Src);
  });
}

/// A round trip or a detour starting at C, or nullopt.
std::optional<RedundantConversion> secondConversion(ModuleConversions &Convs,
                                                    const Conversion &C,
                                                    const ElementwiseFlow &F) {
  RedundantConversion R;
  R.C = &C;
  R.Flow = F;
  for (const Use &U : F.Exits) {
    const Conversion *N =
        U.User->Name == "ttg.convert_layout" ? Convs.of(U.User) : nullptr;
    if (!N || !N->known())
      return std::nullopt;
    R.Next.push_back(N);
  }
  bool Back = all_of(R.Next, [&](const Conversion *N) {
    return Convs.equivalent(*C.Src, *N->Dst, C.shape());
  });
  R.Worst = C.Cost->Cost;
  for (const Conversion *N : R.Next)
    R.Worst = std::max(R.Worst, N->Cost->Cost);
  if (Back) {
    R.Kind = Redundancy::RoundTrip;
    return R;
  }
  if (R.Next.size() != 1)
    return std::nullopt;
  const Conversion &Last = *R.Next.front();
  Expected<ConversionAnalysis> A =
      analyzeConversion(*C.Src, *Last.Dst, C.shape());
  if (!A) {
    consumeError(A.takeError());
    return std::nullopt;
  }
  // Cheaper: a lower cost class than the costlier step, or the same class
  // where both steps move data (two rounds of shuffles or shared memory for
  // one).
  unsigned D = costRank(A->Cost), W = costRank(R.Worst);
  bool BothMove = C.Cost->Cost != ConversionCost::Registers &&
                  Last.Cost->Cost != ConversionCost::Registers;
  if (!(D < W || (D == W && BothMove)))
    return std::nullopt;
  R.Kind = Redundancy::Detour;
  R.Direct = std::move(*A);
  return R;
}

} // namespace

std::vector<RedundantConversion>
findRedundantConversions(ModuleConversions &Convs) {
  std::vector<RedundantConversion> Out;
  DenseSet<const Operation *> Covered;
  for (const Conversion &C : Convs.all()) {
    if (!C.known() || Covered.contains(C.Op))
      continue;
    ElementwiseFlow F = followElementwise(*C.Op->Results[0]);
    // Dead, or preparing a global/shared store (coalescing): not judged.
    if (F.Exits.empty() || any_of(F.Exits, isMemoryStore))
      continue;
    if (Convs.equivalent(*C.Src, *C.Dst, C.shape())) {
      RedundantConversion R;
      R.C = &C;
      R.Kind = Redundancy::Equivalent;
      R.Flow = std::move(F);
      Out.push_back(std::move(R));
      continue;
    }
    // Dropping the conversion must not need another value converted.
    if (!F.SelfContained)
      continue;
    if (feedsAcceptingStores(Convs, C, F)) {
      RedundantConversion R;
      R.C = &C;
      R.Kind = F.Chain.empty() ? Redundancy::TmemStoreFold
                               : Redundancy::TmemStoreChain;
      R.Worst = C.Cost->Cost;
      R.Flow = std::move(F);
      Out.push_back(std::move(R));
      continue;
    }
    if (std::optional<RedundantConversion> R = secondConversion(Convs, C, F)) {
      for (const Conversion *N : R->Next)
        Covered.insert(N->Op);
      Out.push_back(std::move(*R));
    }
  }
  return Out;
}

bool compiledFromGluon(const Kernel &K) {
  return K.has(Stage::Source) && !K.has(Stage::TTIR);
}

StringRef costPhrase(ConversionCost C) {
  switch (C) {
  case ConversionCost::Registers:
    return "stays in registers";
  case ConversionCost::Shuffle:
    return "costs warp shuffles";
  case ConversionCost::Shared:
    return "goes through shared memory";
  }
  return "has an unknown cost";
}

unsigned costRank(ConversionCost C) { return static_cast<unsigned>(C); }

} // namespace gestell
