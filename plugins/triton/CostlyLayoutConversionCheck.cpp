//===- CostlyLayoutConversionCheck.cpp ------------------------------------===//
#include "CostlyLayoutConversionCheck.h"
#include "GluonHint.h"
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
      "shared memory (st/ld.shared or stmatrix/ldmatrix plus barriers) each "
      "time it runs: on every iteration, once per outer iteration when it "
      "sits outside an inner loop, or under an scf.if (a flattened "
      "persistent loop's epilogue); the note says which. Needed or not; "
      "triton-redundant-layout-conversion says whether it can go.";
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

namespace {
/// The innermost scf.if between Op and its loop: Op runs only on the
/// iterations where it holds. Null when Op runs on every iteration.
const Operation *guardOf(const Operation &Op, const Operation &Loop) {
  for (const Operation *P = Op.parentOp(); P && P != &Loop; P = P->parentOp())
    if (P->Name == "scf.if")
      return P;
  return nullptr;
}

/// How often the conversion Op runs in Loop, as the note says it: under a
/// condition (the epilogue of a flattened persistent loop runs once per
/// output tile), outside an inner loop (once per outer iteration), or on
/// every iteration.
std::string howOften(const Operation &Op, const Operation &Loop) {
  if (const Operation *If = guardOf(Op, Loop))
    return "on the iterations where the scf.if at line " +
           std::to_string(If->Line) +
           " holds, not on every one (an epilogue under a condition: a "
           "flattened persistent loop runs it once per output tile)";
  bool AroundInner = false;
  Loop.walk([&](Operation &Nested) { AroundInner |= Nested.isLoop(); });
  if (AroundInner)
    return "on every iteration of a loop around an inner loop, which the "
           "conversion is outside of (once per outer iteration, such as an "
           "output tile of a persistent kernel, not in the inner loop)";
  return "on every iteration";
}
} // namespace

Error CostlyLayoutConversionCheck::check(CheckInput &In) {
  Expected<ModuleConversions &> Shared = In.Kernel.conversions();
  if (!Shared)
    return Shared.takeError();
  const ModuleConversions &Convs = *Shared;
  const TtgirModule *M = &Convs.module();
  bool Gluon = compiledFromGluon(In.Kernel.kernel());
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
    D.note("cost " + costName(Cost) + ": data moves across " + Dims + ", " +
           howOften(*C.Op, Loop) + " (loop depth " + Twine(Depth) + ")");
    if (const Operation *If = guardOf(*C.Op, Loop))
      D.related(ttgirLoc(*M, *If, "the condition it runs under: scf.if"));
    if (Gluon)
      gluonHint(D, "give the producer (a load's or an op's layout) the "
                   "layout the consumer uses, or convert once outside the "
                   "loop");
    else
      D.hint("TritonGPU remove-layout-conversions",
             "make the producer's and the consumer's layouts agree (layout "
             "propagation, the dot-operand or TMEM layouts chosen, "
             "num_warps), or hoist the conversion out of the loop");
    D.context(ConversionCost::Shared == Cost ? "shared" : "shuffle")
        .context("ttg.convert_layout")
        .context(C.SrcText)
        .context(C.DstText)
        .context(Loop.Name);
  }
  return Error::success();
}

} // namespace gestell::triton
