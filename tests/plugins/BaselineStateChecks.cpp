//===- BaselineStateChecks.cpp - Checks for the --baseline tests ----------===//
//
// The "bstate" module, loaded by tests/lit/check-baseline with --load. Its
// checks read real artifacts and exist to give `gestell check
// --baseline` results that are new, unchanged, updated and absent between
// two builds of tests/fixtures, and one check that compares with the
// baseline kernel the engine hands it:
//   bstate-conversion       a remark per ttg.convert_layout (context: its
//                           canonical layouts), from the SDK's TtgirReport;
//   bstate-staging          a warning with the number of fragment-staging
//                           instructions in loops (context: "staging"), so
//                           its message changes when the count does;
//   bstate-staging-growth   a warning when an expression (gestell/Expr.h)
//                           over this kernel and its baseline holds
//                           (option When), through KernelMetricProvider.
//
//===----------------------------------------------------------------------===//
#include "gestell/Expr.h"
#include "gestell/KernelMetrics.h"
#include "gestell/Plugin.h"
#include "gestell/TtgirReport.h"

using namespace gestell;
using namespace llvm;

namespace {

class ConversionCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "bstate-conversion";
    I.Summary = "Names every layout conversion of the TTGIR";
    I.Category = "test";
    I.DefaultLevel = Level::Remark;
    I.Stages = {Stage::TTGIR};
    return I;
  }
  using Check::Check;
  Error check(CheckInput &In) override {
    Expected<const TtgirModule &> M = In.Kernel.ttgir();
    if (!M)
      return M.takeError();
    const Kernel &K = In.Kernel.kernel();
    for (const ConversionReport &C : reportTtgir(*M).Conversions)
      diag(DiagLoc::artifact(Stage::TTGIR, K.path(Stage::TTGIR), C.Line,
                             C.Column),
           "layout conversion" + Twine(C.LoopDepth ? " in a loop" : "") +
               " (cost " + C.Cost.value_or("unknown") + ")")
          .context(C.Src)
          .context(C.Dst);
    return Error::success();
  }
};

/// SASS counts of the kernel (when it has SASS).
Expected<StageCounts> sassCounts(KernelView &V) {
  Expected<const SassModule &> S = V.sass();
  if (!S)
    return S.takeError();
  return countInstructions(*S, FamilyTable::builtin());
}

class StagingCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "bstate-staging";
    I.Summary = "Counts fragment-staging instructions in loops";
    I.Category = "test";
    I.Stages = {Stage::SASS};
    return I;
  }
  using Check::Check;
  Error check(CheckInput &In) override {
    Expected<StageCounts> C = sassCounts(In.Kernel);
    if (!C)
      return C.takeError();
    uint64_t N =
        C->Families[*FamilyTable::builtin().indexOf("staging")].InLoops;
    if (!N)
      return Error::success();
    diag(DiagLoc::artifact(Stage::SASS, In.Kernel.sassPath()),
         Twine(N) + " fragment-staging instructions in loops")
        .context("staging");
    return Error::success();
  }
};

class StagingGrowthCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "bstate-staging-growth";
    I.Summary = "Staging grows against the baseline while tensor-core work "
                "holds";
    I.Category = "test";
    I.Stages = {Stage::SASS};
    return I;
  }
  StagingGrowthCheck(StringRef Name, CheckContext &Context)
      : Check(Name, Context),
        When(Options.get("When", "head.staging.loop > base.staging.loop and "
                                 "head.tensor.loop == base.tensor.loop")) {}
  void storeOptions(OptionMap &Opts) const override {
    Options.store(Opts, "When", When);
  }
  Error check(CheckInput &In) override {
    if (!In.Baseline)
      return Error::success();
    Expected<Expr> E =
        Expr::parseCondition(When, FamilyTable::builtin(), "When");
    if (!E)
      return E.takeError();
    KernelMetrics Head =
        collectKernelMetrics(In.Kernel, FamilyTable::builtin());
    KernelMetrics Base =
        collectKernelMetrics(*In.Baseline, FamilyTable::builtin());
    ExprResult R =
        E->evaluate(KernelMetricProvider(Head, &Base, In.Kernel.kernel().Name));
    if (!R.holds())
      return Error::success();
    DiagnosticBuilder D =
        diag(DiagLoc::artifact(Stage::SASS, In.Kernel.sassPath()),
             "staging grew against the baseline: '" + E->str() + "'");
    for (const auto &[Metric, V] : R.Used)
      D.note(Metric + " = " +
             (V.Value ? std::to_string(int64_t(*V.Value))
                      : std::string("unknown")));
    D.context("staging-growth");
    return Error::success();
  }

private:
  const std::string When;
};

void registerChecks(CheckRegistry &R) {
  R.add<ConversionCheck>();
  R.add<StagingCheck>();
  R.add<StagingGrowthCheck>();
}

} // namespace

extern "C" GESTELL_PLUGIN_EXPORT PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "bstate", "1.0.0", registerChecks};
}
