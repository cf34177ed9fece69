//===- CostlyLayoutConversionCheck.cpp ------------------------------------===//
#include "CostlyLayoutConversionCheck.h"
#include "gestell/utils/ModuleConversions.h"

using namespace llvm;

namespace gestell::triton {

CheckInfo CostlyLayoutConversionCheck::info() {
  CheckInfo I;
  I.Id = "triton-costly-layout-conversion";
  I.Summary = "Layout conversion inside a loop that goes through shared memory";
  I.Description =
      "A ttg.convert_layout inside a loop whose lowering, as the layout "
      "algebra decides it the way Triton 3.6 lowers it, stages data through "
      "shared memory (st/ld.shared or stmatrix/ldmatrix plus barriers) on "
      "every iteration. Needed or not; triton-redundant-layout-conversion "
      "says whether it can go.";
  I.Category = "performance";
  I.Precision = "high"; // docs/checks/<id>.md, "On real code"
  I.DefaultLevel = Level::Remark;
  I.Stages = {Stage::TTGIR};
  return I;
}

CostlyLayoutConversionCheck::CostlyLayoutConversionCheck(StringRef Name,
                                                         CheckContext &Context)
    : Check(Name, Context),
      IncludeShuffles(Options.get("IncludeShuffles", false)),
      MinLoopDepth(std::max(1u, Options.get("MinLoopDepth", 1u))) {}

void CostlyLayoutConversionCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "IncludeShuffles", IncludeShuffles);
  Options.store(Opts, "MinLoopDepth", MinLoopDepth);
}

Error CostlyLayoutConversionCheck::check(CheckInput &In) {
  Expected<ModuleConversions &> Shared = In.Kernel.conversions();
  if (!Shared)
    return Shared.takeError();
  const ModuleConversions &Convs = *Shared;
  const TtgirModule *M = &Convs.module();
  for (const Conversion &C : Convs.all()) {
    if (!C.known())
      continue;
    ConversionCost Cost = C.Cost->Cost;
    if (Cost != ConversionCost::Shared &&
        !(IncludeShuffles && Cost == ConversionCost::Shuffle))
      continue;
    unsigned Depth = C.Op->loopDepth();
    if (Depth < MinLoopDepth)
      continue;
    const Operation &Loop = *C.Op->enclosingLoop();
    auto D = diag(ttgirLoc(*M, *C.Op),
                  "layout conversion in a loop " + costPhrase(Cost) + ": " +
                      C.SrcText + " -> " + C.DstText + " on " + C.tensorText());
    D.source(pythonLoc(*M, *C.Op));
    D.cause(ttgirLoc(*M, *C.Op));
    D.related(ttgirLoc(*M, Loop, "the enclosing loop: " + Loop.Name.str()));
    if (std::optional<DiagLoc> P =
            pythonLoc(*M, Loop, "the enclosing loop in the Python source"))
      D.related(*P);
    std::string Dims;
    for (const std::string &Dim : C.Cost->MovingDims)
      Dims += (Dims.empty() ? "" : ", ") + Dim;
    D.note("cost " + costName(Cost) + ": data moves across " + Dims +
           ", on every iteration (loop depth " + Twine(Depth) + ")");
    D.hint("TritonGPU remove-layout-conversions",
           "make the producer's and the consumer's layouts agree (layout "
           "propagation, the dot-operand or TMEM layouts chosen, num_warps), "
           "or hoist the conversion out of the loop");
    D.context(ConversionCost::Shared == Cost ? "shared" : "shuffle")
        .context("ttg.convert_layout")
        .context(C.SrcText)
        .context(C.DstText)
        .context(Loop.Name);
  }
  return Error::success();
}

} // namespace gestell::triton
