//===- RuleCheck.cpp - A rule of a rule pack as a check -------------------===//
#include "gestell/RuleCheck.h"

#include "gestell/Error.h"
#include "gestell/KernelMetrics.h"
#include "gestell/utils/Locate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/GlobPattern.h"

#include <functional>

using namespace llvm;

namespace gestell {

CheckInfo ruleCheckInfo(const Rule &R, StringRef DefaultDoc) {
  CheckInfo Info;
  Info.Id = R.CheckId;
  Info.Summary = R.Summary;
  Info.Description = R.Description;
  Info.Category = R.Category;
  Info.Tags = R.Tags;
  Info.Precision = R.Precision;
  Info.DefaultLevel = R.Severity;
  if (R.ReadStage)
    Info.Stages = {*R.ReadStage};
  Info.EnabledByDefault = R.EnabledByDefault;
  Info.DocPage = R.Doc.empty() ? DefaultDoc.str() : R.Doc;
  return Info;
}

void addRuleChecks(
    CheckRegistry &Registry, ArrayRef<std::shared_ptr<const RulePack>> Packs,
    std::function<std::string(const RulePack &, const Rule &)> DefaultDoc) {
  for (const std::shared_ptr<const RulePack> &Pack : Packs)
    for (const Rule &R : Pack->Rules) {
      const Rule *Ptr = &R;
      Registry.add(ruleCheckInfo(R, DefaultDoc ? DefaultDoc(*Pack, R) : ""),
                   [Pack, Ptr](StringRef Name, CheckContext &Ctx) {
                     return std::unique_ptr<Check>(
                         new RuleCheck(Name, Ctx, Pack, *Ptr));
                   });
    }
}

RuleCheck::RuleCheck(StringRef Name, CheckContext &Context,
                     std::shared_ptr<const RulePack> Pack, const Rule &R)
    : Check(Name, Context), Pack(std::move(Pack)), R(R) {}

Error RuleCheck::check(CheckInput &In) {
  return R.isPattern() ? checkPattern(In) : checkCount(In);
}

namespace {
std::string hintWhere(const Rule &R) {
  if (!R.HintWhere.empty())
    return R.HintWhere;
  return R.ReadStage ? stageName(*R.ReadStage).upper() : "SASS or PTX";
}
} // namespace

Error RuleCheck::checkPattern(CheckInput &In) {
  Expected<const TtgirModule &> M = In.Kernel.ttgir();
  if (!M)
    return M.takeError();
  RuleMatcher Matcher(*M, In.Kernel.kernel().target());
  StringRef Kernel = In.Kernel.kernel().Name;
  for (const RuleMatch &Mt : Matcher.match(R)) {
    const Operation &At = *Mt.Ops[std::min<size_t>(R.At, Mt.Ops.size() - 1)];
    DiagnosticBuilder B =
        diag(locate(*M, At), Matcher.render(R.Message, Mt, Kernel));
    if (std::optional<DiagLoc> S = pythonSource(*M, At))
      B.source(*S);
    for (size_t I = 0; I < Mt.Ops.size(); ++I) {
      const Operation &Op = *Mt.Ops[I];
      B.context(Op.Name);
      if (!Op.Operands.empty())
        B.context(Matcher.layoutText(*Op.Operands[0]));
      if (!Op.Results.empty())
        B.context(Matcher.layoutText(*Op.Results[0]));
      if (&Op != &At)
        B.related(locate(*M, Op), "match[" + Twine(I) + "]: " + Op.Name);
    }
    if (R.Hint)
      B.hint(hintWhere(R), Matcher.render(*R.Hint, Mt, Kernel));
    // A chain that starts at a conversion is about that conversion and any
    // other conversion in it: other checks that see them are merged with
    // this finding.
    if (Mt.Ops.front()->Name == "ttg.convert_layout")
      for (const Operation *Op : Mt.Ops)
        if (Op->Name == "ttg.convert_layout")
          B.cause(locate(*M, *Op));
  }
  return Error::success();
}

namespace {
/// Reads metrics with the rule's stage for those that do not name one.
class RuleStageProvider : public MetricProvider {
public:
  RuleStageProvider(const MetricProvider &Inner, std::optional<Stage> S)
      : Inner(Inner), S(S) {}
  MetricValue value(const Metric &M) const override {
    if (!S || M.Stage != MetricStage::Default ||
        M.Kind == MetricKind::Resource ||
        (M.Kind == MetricKind::Opcode &&
         M.opcodeStage() != MetricStage::Default))
      return Inner.value(M);
    Metric Staged = M;
    Staged.Stage = *S == Stage::PTX ? MetricStage::PTX : MetricStage::SASS;
    return Inner.value(Staged);
  }

private:
  const MetricProvider &Inner;
  std::optional<Stage> S;
};

/// Which instruction stages the metrics of a rule read.
MetricStages stagesRead(const Rule &R) {
  MetricStages St{false, false};
  auto Add = [&](const Metric &M) {
    if (M.Kind == MetricKind::Resource)
      return;
    MetricStage S = M.Stage;
    if (S == MetricStage::Default && M.Kind == MetricKind::Opcode)
      S = M.opcodeStage();
    if (S == MetricStage::Default && R.ReadStage)
      S = *R.ReadStage == Stage::PTX ? MetricStage::PTX : MetricStage::SASS;
    if (S != MetricStage::SASS)
      St.Ptx = true;
    if (S != MetricStage::PTX)
      St.Sass = true;
  };
  for (const Metric &M : R.When->metrics())
    Add(M);
  for (const Template *T : {&R.Message, R.Hint ? &*R.Hint : nullptr})
    if (T)
      for (const Template::Part &P : T->Parts)
        if (P.Hole && P.Hole->Metric)
          for (const Metric &M : P.Hole->Metric->metrics())
            Add(M);
  return St;
}

bool readsBase(const Rule &R) {
  if (R.When->usesBase())
    return true;
  for (const Template *T : {&R.Message, R.Hint ? &*R.Hint : nullptr})
    if (T)
      for (const Template::Part &P : T->Parts)
        if (P.Hole && P.Hole->Metric && P.Hole->Metric->usesBase())
          return true;
  return false;
}

/// The file a metric of one side was read from.
std::string metricFile(const KernelMetrics &KM, const Kernel &K,
                       StringRef StageRead) {
  if (StageRead == "sass")
    return KM.SassFile.empty() ? K.path(Stage::SASS).str() : KM.SassFile;
  if (StageRead == "ptx")
    return K.path(Stage::PTX).str();
  return K.has(Stage::Cubin) ? K.path(Stage::Cubin).str()
                             : K.path(Stage::Metadata).str();
}
} // namespace

Error RuleCheck::checkCount(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  StringRef Target = K.target();
  // `target` predicates first: nothing to count on other targets.
  for (const Predicate &P : R.Where) {
    if (P.K != Predicate::Kind::Target)
      continue;
    if (Target.empty())
      return Error::success();
    bool Any = any_of(P.Values, [&](const std::string &Want) {
      if (Want.find_first_of("*?[{") == std::string::npos)
        return Target == Want;
      Expected<GlobPattern> G = GlobPattern::create(Want);
      if (!G) {
        consumeError(G.takeError());
        return false;
      }
      return G->match(Target);
    });
    if (Any == P.Negated)
      return Error::success();
  }

  const FamilyTable &Families = FamilyTable::active();
  MetricStages St = stagesRead(R);
  KernelMetrics Head = collectKernelMetrics(In.Kernel, Families, St);
  std::optional<KernelMetrics> Base;
  if (In.Baseline && readsBase(R))
    Base = collectKernelMetrics(*In.Baseline, Families, St);
  KernelMetricProvider Metrics(Head, Base ? &*Base : nullptr, K.Name);
  RuleStageProvider P(Metrics, R.ReadStage);

  ExprResult Res = R.When->evaluate(P);
  if (!Res.holds())
    return Error::success();

  // The finding points at the file whose counts decided it.
  std::string HeadStage = R.ReadStage ? stageName(*R.ReadStage).str() : "";
  if (HeadStage.empty())
    for (const auto &[Name, V] : Res.Used)
      if (!V.Stage.empty() && !StringRef(Name).starts_with("base.")) {
        HeadStage = V.Stage;
        break;
      }
  std::string File = metricFile(Head, K, HeadStage);
  std::optional<Stage> FileStage = stageFromName(HeadStage);
  DiagLoc Primary = DiagLoc::artifact(
      FileStage ? *FileStage
                : (K.has(Stage::Cubin) ? Stage::Cubin : Stage::Metadata),
      File);
  DiagnosticBuilder B =
      diag(Primary, renderCountTemplate(R.Message, P, K.Name, Target));
  for (const auto &[Name, V] : Res.Used) {
    std::string Text = Name + " = ";
    if (V.Value) {
      double D = *V.Value;
      Text += D == static_cast<double>(static_cast<int64_t>(D))
                  ? std::to_string(static_cast<int64_t>(D))
                  : std::to_string(D);
    } else {
      Text += "unknown (" + V.WhyUnknown + ")";
    }
    if (!V.Stage.empty())
      Text += " (" + V.Stage + ")";
    if (StringRef(Name).starts_with("base.") && Base) {
      const Kernel &BK = In.Baseline->kernel();
      std::optional<Stage> BS = stageFromName(V.Stage);
      B.note(DiagLoc::artifact(BS ? *BS : Stage::Cubin,
                               metricFile(*Base, BK, V.Stage)),
             Text + " in the baseline");
    } else {
      B.note(Text);
    }
  }
  B.context("when: " + R.When->str());
  if (R.Hint)
    B.hint(hintWhere(R), renderCountTemplate(*R.Hint, P, K.Name, Target));
  return Error::success();
}

} // namespace gestell
