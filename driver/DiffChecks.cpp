//===- DiffChecks.cpp - Checks that fire only in a later state ------------===//
//
// The lint engine, run the way `gestell check --baseline=BASE STATE` runs it
// (LintSession, Baseline.h), once per later state: configs found from the
// state's path (or --config), built-in and --load plugins, the enabled
// checks on both builds, results matched by fingerprint. Results marked
// "new" fire only in the later state; "absent" ones fired in the base and no
// longer do. Each is attached to the report row of its kernel.
//
// The states whose config is the base's are checked during the diff's one
// read of every kernel (DiffLint.h, DiffRead.cpp); their results are
// gathered here as LintSession::run would have returned them. The others
// are linted here, after the read, by LintSession::run.
//
//===----------------------------------------------------------------------===//
#include "Baseline.h"
#include "Config.h"
#include "DiffLint.h"
#include "LintSession.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

namespace gestell::driver {

namespace {

LintOptions lintOptions(const DiffCheckOptions &Opts, const std::string &Path) {
  LintOptions LO;
  LO.Paths = {Path};
  LO.ConfigFile = Opts.ConfigFile;
  LO.Load = Opts.Load;
  LO.AllowConfigPlugins = Opts.AllowConfigPlugins;
  // Checked once by DiffLint's constructor.
  consumeError(appendGlobs(LO.CommandLine.Checks, Opts.Checks, "--checks"));
  return LO;
}

void printWarnings(const LintSession &S) {
  for (const std::string &W : S.configWarnings())
    errs() << "gestell diff: warning: " << W << "\n";
}

using RowIndex =
    std::vector<std::map<std::pair<std::string, std::string>, size_t>>;

/// Records the new and absent results of Run (state S against the base).
void attachRun(DiffReport &R, unsigned S, const RunReport &Run,
               const RowIndex &Rows, std::set<std::string> &Enabled) {
  for (const RegisteredCheck *C : Run.Rules)
    Enabled.insert(C->Info.Id);
  for (const Notification &Note : Run.Notifications)
    if (Note.Severity == Level::Error)
      R.Problems.push_back("checks on " + R.States[S]->Label + ": " +
                           Note.Message);
  for (const Result &Res : Run.Results) {
    if (Res.Suppressed ||
        (Res.BaselineState != "new" && Res.BaselineState != "absent"))
      continue;
    const Diagnostic &D = Res.Diag;
    CheckFinding F;
    F.State = S;
    F.Change = Res.BaselineState;
    F.CheckId = D.CheckId;
    F.Level = levelName(D.Severity).str();
    F.Message = D.Message;
    F.File = D.Primary.File;
    F.Line = D.Primary.Line;
    F.Column = D.Primary.Column;
    if (D.SourceLoc)
      F.Source =
          D.SourceLoc->File + ":" + std::to_string(D.SourceLoc->Line) +
          (D.SourceLoc->Column ? ":" + std::to_string(D.SourceLoc->Column)
                               : std::string());
    F.Kernel = D.Kernel;
    F.Dir = Res.KernelDir;
    // A new result belongs to the later state's kernel, an absent one to
    // the base's.
    // Only rows compared in this state take it; results of kernels
    // without a match there are listed apart.
    const auto &Where = Rows[F.Change == "new" ? S : 0];
    auto It = Where.find({F.Dir, F.Kernel});
    if (It != Where.end() &&
        R.Kernels[It->second].States[S].Status == MatchStatus::Matched)
      R.Kernels[It->second].Checks.push_back(std::move(F));
    else
      R.OtherChecks.push_back(std::move(F));
  }
}

/// What LintSession::run adds for a path's discovery (Prefix "baseline: "
/// for the baseline's).
void discoveryNotes(RunReport &Run, const StateSummary &S, StringRef Prefix) {
  for (const DiscoveryProblem &Prob : S.Found.Problems)
    Run.Notifications.push_back(
        {Prob.Severity, Prefix.str() + Prob.where() + ": " + Prob.Message, "",
         "", Prob.Path, Prob.Line, Prob.Column});
  if (S.Found.Kernels.empty() && !hasErrors(S.Found))
    Run.Notifications.push_back(
        {Level::Error,
         Prefix.empty() ? S.Path + ": no kernels found (expected a Triton "
                                   "cache, a dump folder or compiled "
                                   "artifacts)"
                        : Prefix.str() + S.Path + ": no kernels found",
         "", "", S.Path});
}

} // namespace

DiffLint::DiffLint(const std::vector<StateSummary> &States, DiffCheckOptions O)
    : Opts(std::move(O)), States(States) {
  FirstOwn = States.size();
  CommandLineConfig Probe;
  if (Error E = appendGlobs(Probe.Checks, Opts.Checks, "--checks")) {
    Failure = "--checks: " + toString(std::move(E));
    return;
  }
  std::vector<std::string> Paths;
  for (const StateSummary &S : States)
    Paths.push_back(S.Path);
  ConfigChoice Choice = chooseConfigs(Opts.ConfigFile, Paths);
  for (unsigned S = 1; S < States.size(); ++S) {
    if (Choice.PerPath[S] != Choice.PerPath[0]) {
      FirstOwn = S;
      return;
    }
    Expected<std::unique_ptr<LintSession>> Session =
        LintSession::create(lintOptions(Opts, States[S].Path));
    if (!Session) {
      Failure = toString(Session.takeError());
      return;
    }
    printWarnings(**Session);
    SharedStateLint L;
    L.State = S;
    L.Session = std::move(*Session);
    Shared.push_back(std::move(L));
  }
}

bool DiffLint::anyChecks() const {
  return any_of(Shared, [](const SharedStateLint &L) {
    return !L.Session->rules().empty();
  });
}

void DiffLint::makeJobs(std::vector<StateSummary> &States) {
  for (SharedStateLint &L : Shared) {
    const EffectiveConfig &Cfg = L.Session->configForPath(0);
    std::vector<Kernel> &Ks = States[L.State].Found.Kernels;
    L.JobOf.assign(Ks.size(), -1);
    for (size_t I = 0; I < Ks.size(); ++I)
      if (!Cfg.excluded(Ks[I].Name)) {
        L.JobOf[I] = int(L.Jobs.size());
        L.Jobs.push_back({&Ks[I], &Cfg, nullptr});
      }
    L.Match.resize(L.Jobs.size());
    L.Outcomes.resize(L.Jobs.size());
  }
  if (Shared.empty())
    return;
  CheckedStages = {Stage::Source, Stage::TTIR, Stage::ResUsage};
  for (const SharedStateLint &L : Shared)
    for (const RegisteredCheck *C : L.Session->rules())
      for (Stage S : C->Info.Stages)
        if (!is_contained(CheckedStages, S))
          CheckedStages.push_back(S);
  // The baseline side, as LintSession::run makes it: every base kernel its
  // config does not exclude, alone. The config of the kernel it matches, or
  // the primary one, is the same config (the state's only path), and the
  // same file for every shared state: the results are made once.
  const EffectiveConfig &Cfg = Shared.front().Session->primaryConfig();
  std::vector<Kernel> &Bs = States[0].Found.Kernels;
  BaseJobOf.assign(Bs.size(), -1);
  for (size_t I = 0; I < Bs.size(); ++I)
    if (!Cfg.excluded(Bs[I].Name)) {
      BaseJobOf[I] = int(BaseJobs.size());
      BaseJobs.push_back({&Bs[I], &Cfg, nullptr});
    }
  BaseOutcomes.resize(BaseJobs.size());
}

void DiffLint::finish(DiffReport &R, const AnalysisOptions &Analysis,
                      function_ref<void(RunReport &)> Adjust) {
  // Rows by (folder, name) of the kernel in each state.
  const size_t N = R.States.size();
  RowIndex Rows(N);
  for (size_t I = 0; I < R.Kernels.size(); ++I)
    for (size_t S = 0; S < N; ++S)
      if (const KernelSummary *K = R.Kernels[I].States[S].Summary)
        Rows[S][{K->K->Dir, K->K->Name}] = I;

  std::set<std::string> Enabled;
  const std::vector<Kernel> &Bs = States[0].Found.Kernels;
  for (size_t Which = 0; Which < Shared.size(); ++Which) {
    SharedStateLint &L = Shared[Which];
    RunReport Run;
    Run.Plugins.assign(L.Session->plugins().begin(),
                       L.Session->plugins().end());
    Run.Notifications.assign(L.Session->packProblems().begin(),
                             L.Session->packProblems().end());
    discoveryNotes(Run, States[L.State], "");
    discoveryNotes(Run, States[0], "baseline: ");
    Run.Rules = L.Session->rules();
    gatherOutcomes(L.Jobs, std::move(L.Outcomes), Run);
    RunReport Base;
    std::vector<KernelOutcome> BaseCopy;
    if (Which + 1 == Shared.size())
      BaseCopy = std::move(BaseOutcomes);
    else
      BaseCopy = BaseOutcomes;
    gatherOutcomes(BaseJobs, std::move(BaseCopy), Base);
    for (Notification &Note : Base.Notifications) {
      Note.Message = "baseline: " + Note.Message;
      Run.Notifications.push_back(std::move(Note));
    }
    std::vector<std::pair<const Kernel *, const Kernel *>> Pairs;
    for (size_t J = 0; J < L.Jobs.size(); ++J)
      Pairs.push_back({L.Jobs[J].K, L.Match[J] ? &Bs[*L.Match[J]] : nullptr});
    markBaselineStates(Run, std::move(Base), Pairs);
    Adjust(Run);
    attachRun(R, L.State, Run, Rows, Enabled);
  }
  if (!Failure.empty()) {
    R.Problems.push_back(Failure);
    return;
  }
  for (unsigned S = FirstOwn; S < N; ++S) {
    Expected<std::unique_ptr<LintSession>> Session =
        LintSession::create(lintOptions(Opts, States[S].Path));
    if (!Session) {
      R.Problems.push_back(toString(Session.takeError()));
      return;
    }
    printWarnings(**Session);
    RunReport Run = (*Session)->run(States[0].Path, Opts.Threads, Analysis);
    Adjust(Run);
    attachRun(R, S, Run, Rows, Enabled);
  }
  R.ChecksRan = true;
  R.EnabledChecks.assign(Enabled.begin(), Enabled.end());
  for (KernelDiff &D : R.Kernels)
    D.Changed |= !D.Checks.empty();
}

} // namespace gestell::driver
