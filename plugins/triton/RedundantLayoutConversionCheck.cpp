//===- RedundantLayoutConversionCheck.cpp ---------------------------------===//
#include "RedundantLayoutConversionCheck.h"
#include "GluonHint.h"
#include "gestell/utils/ModuleConversions.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace gestell::triton {

namespace {

constexpr StringLiteral TmemStore = "ttng.tmem_store";
constexpr StringLiteral ConvertLayout = "ttg.convert_layout";

Level levelFor(ConversionCost C) {
  return C == ConversionCost::Registers ? Level::Remark : Level::Warning;
}

std::string inLoop(const Operation &Op) {
  return Op.loopDepth() ? " in a loop" : "";
}

std::string movingDims(const ConversionAnalysis &A) {
  if (A.MovingDims.empty())
    return "nothing moves";
  std::string S = "data moves across";
  for (size_t I = 0; I < A.MovingDims.size(); ++I)
    S += (I ? ", " : " ") + A.MovingDims[I];
  return S;
}

std::string costNote(StringRef What, const ConversionAnalysis &A) {
  return (What + ": " + costName(A.Cost) + " (" + movingDims(A) + ")").str();
}

/// A consumer that reads the value as a dot operand (register operand of a
/// wgmma, mma or tcgen05 MMA).
bool isDot(const Operation &Op) {
  return Op.Name == "tt.dot" || Op.Name == "tt.dot_scaled" ||
         Op.Name == "ttng.warp_group_dot" || Op.Name == "ttng.tc_gen5_mma" ||
         Op.Name == "ttng.tc_gen5_mma_scaled";
}

} // namespace

CheckInfo RedundantLayoutConversionCheck::info() {
  CheckInfo I;
  I.Id = "triton-redundant-layout-conversion";
  I.Summary = "Layout conversion the kernel does not need: a TMEM store that "
              "accepts the source layout, a round trip, a detour, or "
              "equivalent layouts";
  I.Description =
      "A ttg.convert_layout is redundant when its result reaches "
      "ttng.tmem_store (directly or through elementwise ops) and the store "
      "accepts the source layout as it is (TMEM-compatible), when a second "
      "conversion takes the value back to a layout equivalent to the source "
      "(round trip), when the source could be converted to the final layout "
      "directly for less than the two steps (detour), or when source and "
      "destination are the same linear layout (the compiler folds it). Cost "
      "classes and equivalence come from the layout algebra (linear "
      "layouts), not from spelling. Warning when the redundant conversion "
      "costs shuffles or shared memory, remark when it stays in registers; "
      "conversions that prepare a global or shared-memory store are not "
      "judged.";
  I.Category = "performance";
  I.Precision = "high"; // docs/checks/<id>.md, "On real code"
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::TTGIR};
  return I;
}

RedundantLayoutConversionCheck::RedundantLayoutConversionCheck(
    StringRef Name, CheckContext &Context)
    : Check(Name, Context), ReportFree(Options.get("ReportFree", true)),
      LoopsOnly(Options.get("LoopsOnly", false)) {}

void RedundantLayoutConversionCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "ReportFree", ReportFree);
  Options.store(Opts, "LoopsOnly", LoopsOnly);
}

Error RedundantLayoutConversionCheck::check(CheckInput &In) {
  Expected<ModuleConversions &> Shared = In.Kernel.conversions();
  if (!Shared)
    return Shared.takeError();
  ModuleConversions &Convs = *Shared;
  bool Gluon = compiledFromGluon(In.Kernel.kernel());
  for (const RedundantConversion &R : Convs.redundant()) {
    if (LoopsOnly && R.C->Op->loopDepth() == 0)
      continue;
    switch (R.Kind) {
    case Redundancy::Equivalent:
      if (ReportFree)
        equivalent(Convs, R, Gluon);
      break;
    case Redundancy::TmemStoreFold:
    case Redundancy::TmemStoreChain:
      tmemStore(Convs, R, Gluon);
      break;
    case Redundancy::RoundTrip:
    case Redundancy::Detour:
      secondConversion(Convs, R, Gluon);
      break;
    }
  }
  return Error::success();
}

void RedundantLayoutConversionCheck::tmemStore(ModuleConversions &Convs,
                                               const RedundantConversion &R,
                                               bool Gluon) {
  const Conversion &C = *R.C;
  const ElementwiseFlow &F = R.Flow;
  ConversionCost Cost = R.Worst;
  if (Cost == ConversionCost::Registers && !ReportFree)
    return;
  bool Fold = R.Kind == Redundancy::TmemStoreFold;
  const TtgirModule &M = Convs.module();
  const Operation &Store = *F.Exits.front().User;
  std::string Through;
  for (const Operation *Op : F.Chain)
    Through += (Through.empty() ? "" : ", ") + Op->Name.str();
  auto D = diag(
      ttgirLoc(M, *C.Op),
      Fold ? "redundant layout conversion" + inLoop(*C.Op) + ": " + TmemStore +
                 " accepts the source layout (TMEM-compatible); " + C.SrcText +
                 " -> " + C.DstText + " on " + C.tensorText() + " " +
                 costPhrase(Cost)
           : "layout conversion" + inLoop(*C.Op) + " before " + Through +
                 " and " + TmemStore.str() +
                 ", which accepts the source layout: the elementwise ops "
                 "could run in it; " +
                 C.SrcText + " -> " + C.DstText + " on " + C.tensorText() +
                 " " + costPhrase(Cost),
      levelFor(Cost));
  D.source(pythonLoc(M, *C.Op));
  D.cause(ttgirLoc(M, *C.Op));
  const Operation *Producer = producerOf(*C.Op->Operands[0]);
  if (Producer)
    D.related(ttgirLoc(M, *Producer, "producer: " + Producer->Name.str()));
  for (const Operation *Op : F.Chain)
    D.related(ttgirLoc(M, *Op, "then: " + Op->Name.str()));
  for (const Use &U : F.Exits)
    D.related(ttgirLoc(M, *U.User,
                       "consumer: " + TmemStore.str() +
                           " (accepts the source layout)"));
  D.note(costNote("cost", *C.Cost));
  if (Cost == ConversionCost::Registers)
    D.note("the conversion stays in registers: it costs at most register "
           "moves");
  if (Gluon)
    gluonHint(D, Fold ? "the TMEM store takes the source layout, so the "
                        "conversion can go"
                      : "the elementwise ops and the TMEM store can work in "
                        "the source layout: convert later, or not at all");
  else if (Fold)
    D.hint("ttng.tmem_store lowering; TritonGPU layout propagation",
           "tmem_store should absorb a convert_layout whose source layout is "
           "TMEM-compatible (Triton PR 8353); find the pass that propagated "
           "the destination layout to the store (RemoveLayoutConversions, "
           "after TMemLoadReducePattern gave the loaded value a linear "
           "layout)");
  else
    D.hint("TritonGPU remove-layout-conversions (layout propagation)",
           "the conversion could sink past the elementwise ops into the "
           "store, which accepts the source layout: find the pass that "
           "placed it before them (RemoveLayoutConversions' backward "
           "propagation from the tmem_store's layout)");
  D.context(Fold ? "tmem-store" : "tmem-store-chain")
      .context(Producer ? Producer->Name : "")
      .context(ConvertLayout)
      .context(C.SrcText)
      .context(C.DstText)
      .context(Store.Name);
}

void RedundantLayoutConversionCheck::secondConversion(
    ModuleConversions &Convs, const RedundantConversion &R, bool Gluon) {
  const Conversion &C = *R.C;
  const ElementwiseFlow &F = R.Flow;
  bool RoundTrip = R.Kind == Redundancy::RoundTrip;
  ConversionCost Worst = R.Worst;
  Level L = levelFor(Worst);
  if (L == Level::Remark && !ReportFree)
    return;
  const Conversion &Last = *R.Next.front();
  const TtgirModule &M = Convs.module();
  std::string Msg;
  if (RoundTrip) {
    Msg = "redundant layout round trip" + inLoop(*C.Op) + ": " + C.SrcText +
          " -> " + C.DstText + " and back" +
          (Last.DstText == C.SrcText ? std::string()
                                     : " to the equivalent " + Last.DstText) +
          " on " + C.tensorText() + "; the pair " + costPhrase(Worst).str();
  } else {
    Msg = "redundant layout detour" + inLoop(*C.Op) + ": " + C.SrcText +
          " -> " + C.DstText + " -> " + Last.DstText + " on " + C.tensorText() +
          " " + costPhrase(Worst).str() + "; converting directly " +
          costPhrase(R.Direct->Cost).str();
  }
  auto D = diag(ttgirLoc(M, *C.Op), Msg, L);
  D.source(pythonLoc(M, *C.Op));
  // Both conversions are this finding's: a check that flags the second
  // one is about the same cause.
  D.cause(ttgirLoc(M, *C.Op));
  for (const Conversion *N : R.Next)
    D.cause(ttgirLoc(M, *N->Op));
  const Operation *Producer = producerOf(*C.Op->Operands[0]);
  if (Producer)
    D.related(ttgirLoc(M, *Producer, "producer: " + Producer->Name.str()));
  for (const Operation *Op : F.Chain)
    D.related(ttgirLoc(M, *Op, "then: " + Op->Name.str()));
  bool DotConsumer = false;
  SmallVector<StringRef, 2> ConsumerNames;
  for (const Conversion *N : R.Next) {
    D.related(ttgirLoc(M, *N->Op,
                       RoundTrip
                           ? "the conversion back: " + ConvertLayout.str()
                           : "the second conversion: " + ConvertLayout.str()));
    ElementwiseFlow After = followElementwise(*N->Op->Results[0]);
    for (const Use &U : After.Exits) {
      D.related(ttgirLoc(M, *U.User, "consumer: " + U.User->Name.str()));
      DotConsumer |= isDot(*U.User);
      ConsumerNames.push_back(U.User->Name);
    }
    DotConsumer |= N->Dst->K == Layout::Kind::DotOperand;
  }
  D.note(costNote("cost of the first conversion", *C.Cost));
  for (const Conversion *N : R.Next)
    D.note(costNote(RoundTrip ? "cost of the conversion back"
                              : "cost of the second conversion",
                    *N->Cost));
  if (R.Direct)
    D.note(costNote("cost of converting directly", *R.Direct));
  if (Gluon)
    gluonHint(D, RoundTrip ? "it converts to " + C.DstText +
                                 " and back; drop both conversions"
                           : "convert straight to the final layout instead "
                             "of through " +
                                 C.DstText);
  else if (DotConsumer)
    D.hint("TritonGPU dot-operand layout propagation",
           RoundTrip ? "the value already had the layout the dot operand "
                       "needs; find the pass that routed it through " +
                           C.DstText +
                           " (OptimizeDotOperands, RemoveLayoutConversions)"
                     : "convert straight to the dot-operand layout; find the "
                       "pass that routed the value through " +
                           C.DstText +
                           " (OptimizeDotOperands, RemoveLayoutConversions)");
  else
    D.hint("TritonGPU remove-layout-conversions",
           RoundTrip ? "RemoveLayoutConversions should cancel a conversion "
                       "and its inverse; find the pass that introduced the " +
                           C.DstText + " leg (layout propagation)"
                     : "RemoveLayoutConversions should fold the two "
                       "conversions into one; find the pass that introduced "
                       "the " +
                           C.DstText + " leg (layout propagation)");
  D.context(RoundTrip ? "round-trip" : "detour")
      .context(Producer ? Producer->Name : "")
      .context(ConvertLayout)
      .context(C.SrcText)
      .context(C.DstText)
      .context(Last.DstText);
  for (StringRef N : ConsumerNames)
    D.context(N);
}

void RedundantLayoutConversionCheck::equivalent(ModuleConversions &Convs,
                                                const RedundantConversion &R,
                                                bool Gluon) {
  const Conversion &C = *R.C;
  const ElementwiseFlow &F = R.Flow;
  const TtgirModule &M = Convs.module();
  auto D = diag(ttgirLoc(M, *C.Op),
                "conversion between equivalent layouts" + inLoop(*C.Op) +
                    " (the compiler folds it): " + C.SrcText + " -> " +
                    C.DstText + " on " + C.tensorText(),
                Level::Remark);
  D.source(pythonLoc(M, *C.Op));
  D.cause(ttgirLoc(M, *C.Op));
  const Operation *Producer = producerOf(*C.Op->Operands[0]);
  if (Producer)
    D.related(ttgirLoc(M, *Producer, "producer: " + Producer->Name.str()));
  for (const Use &U : F.Exits)
    D.related(ttgirLoc(M, *U.User, "consumer: " + U.User->Name.str()));
  D.note("both layouts map every register, lane and warp to the same "
         "element of the " +
         C.tensorText() + " tensor");
  if (Gluon)
    gluonHint(D, "both layouts are the same layout, so the call does "
                 "nothing and can go");
  else
    D.hint("TritonGPU remove-layout-conversions",
           "the conversion lowers to nothing; a pass that compares layouts "
           "by spelling rather than by linear layout inserted or kept it");
  D.context("equivalent")
      .context(Producer ? Producer->Name : "")
      .context(ConvertLayout)
      .context(C.SrcText)
      .context(C.DstText);
  for (const Use &U : F.Exits)
    D.context(U.User->Name);
}

} // namespace gestell::triton
