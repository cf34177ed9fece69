//===- DiffChecks.cpp - Checks that fire only in a later state ------------===//
//
// The lint engine, run the way `gestell check --baseline=BASE STATE` runs it
// (LintSession, Baseline.h), once per later state: configs found from the
// state's path (or --config), built-in and --load plugins, the enabled
// checks on both builds, results matched by fingerprint. Results marked
// "new" fire only in the later state; "absent" ones fired in the base and no
// longer do. Each is attached to the report row of its kernel.
//
//===----------------------------------------------------------------------===//
#include "Config.h"
#include "DiffModel.h"
#include "LintSession.h"

#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace llvm;

namespace gestell::driver {

void attachCheckFindings(DiffReport &R, const DiffCheckOptions &Opts,
                         const AnalysisOptions &Analysis) {
  // Rows by (folder, name) of the kernel in each state.
  const size_t N = R.States.size();
  std::vector<std::map<std::pair<std::string, std::string>, size_t>> Rows(N);
  for (size_t I = 0; I < R.Kernels.size(); ++I)
    for (size_t S = 0; S < N; ++S)
      if (const KernelSummary *K = R.Kernels[I].States[S].Summary)
        Rows[S][{K->K->Dir, K->K->Name}] = I;

  std::set<std::string> Enabled;
  for (size_t S = 1; S < N; ++S) {
    LintOptions LO;
    LO.Paths = {R.States[S]->Path};
    LO.ConfigFile = Opts.ConfigFile;
    LO.Load = Opts.Load;
    LO.AllowConfigPlugins = Opts.AllowConfigPlugins;
    if (Error E = appendGlobs(LO.CommandLine.Checks, Opts.Checks, "--checks")) {
      R.Problems.push_back("--checks: " + toString(std::move(E)));
      return;
    }
    Expected<std::unique_ptr<LintSession>> Session = LintSession::create(LO);
    if (!Session) {
      R.Problems.push_back(toString(Session.takeError()));
      return;
    }
    for (const std::string &W : (*Session)->configWarnings())
      errs() << "gestell diff: warning: " << W << "\n";
    RunReport Run = (*Session)->run(R.States[0]->Path, Opts.Threads, Analysis);
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
  R.ChecksRan = true;
  R.EnabledChecks.assign(Enabled.begin(), Enabled.end());
  for (KernelDiff &D : R.Kernels)
    D.Changed |= !D.Checks.empty();
}

} // namespace gestell::driver
