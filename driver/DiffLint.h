//===- DiffLint.h - Reading the states once, for counts and checks --------===//
//
// `gestell diff` reads every kernel of every state once (DiffRead.cpp): one
// KernelView gives the kernel's summary (metrics, match key, TTGIR ops) and,
// from the same parses, the results of the enabled checks (DiffChecks.cpp),
// which run on each later state against the base as `gestell check
// --baseline=BASE STATE` runs them. A later kernel is checked with its
// baseline kernel's view, so a base kernel is read in one task with the
// kernels checked against it; then the views are released, and what stays
// is the summaries and the check results.
//
// Which base kernel a later kernel is checked against is check --baseline's
// matching (Baseline.h), known before the kernels are read: by name,
// target, warps and stages, and where those leave a choice, by TTGIR
// signature and tile shapes. The kernels of such a name have their TTGIR
// read first, on its own and in parallel, for the key (the TTGIR summary
// is kept from that read; kernels of the name whose .ttgir holds the same
// bytes share one read); every other stage, and every other kernel, is
// read once.
//
// A kernel pair a build left untouched is not checked at all: when, in
// every shared state, the kernel checked against a base kernel holds the
// base kernel's bytes in every file a summary or a check reads, neither
// side's checks run. Both builds would give the same results (a check
// compared with an identical baseline reports what the kernel alone
// reports, Check.h), and the diff reports only results that differ. Most
// kernels of two builds are untouched: their summary is made once and
// their checks never run.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_DIFFLINT_H
#define GESTELL_DRIVER_DIFFLINT_H

#include "DiffModel.h"
#include "LintSession.h"
#include "Runner.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell::driver {

/// How the diff runs the lint engine (the check verb's options).
struct DiffCheckOptions {
  std::string Checks;            ///< --checks globs, after the config's
  std::string ConfigFile;        ///< --config
  std::vector<std::string> Load; ///< --load
  bool AllowConfigPlugins = false;
  unsigned Threads = 0;
};

/// The lint of one later state whose checks run in the shared read.
struct SharedStateLint {
  unsigned State = 0;
  std::unique_ptr<LintSession> Session;
  /// The state's kernels that its config does not exclude, in discovery
  /// order, each with its baseline kernel (Match), if any.
  std::vector<KernelJob> Jobs;
  std::vector<std::optional<unsigned>> Match; ///< per job: base kernel
  std::vector<int> JobOf; ///< per kernel of the state: its job, or -1
  std::vector<KernelOutcome> Outcomes; ///< per job, filled by the read
};

/// The checks of a diff: prepared before the read, run during it (for the
/// states that share it) and attached to the report after it.
class DiffLint {
public:
  /// Checks --checks and makes, in state order, the lint session of each
  /// later state whose config is the base's (the same file, or none): their
  /// checks run on the kernels' shared parses. The first later state that
  /// has a config of its own, and every state after it, is linted after the
  /// read on parses of its own, as check --baseline would (its config may
  /// hold another [[family]] table, and the run's table is one). A session
  /// that cannot be made ends the checks there: finish() reports it.
  DiffLint(const std::vector<StateSummary> &States, DiffCheckOptions Opts);

  /// Whether some shared state has a check enabled: only then does a later
  /// kernel need its baseline kernel's view.
  bool anyChecks() const;
  /// Whether every later state is linted in the shared read (none has a
  /// config of its own).
  bool allShared() const { return FirstOwn == States.size(); }

  /// With the kernels' metadata read: the jobs of every shared state and of
  /// the base (whose results, the same for every shared state, are made
  /// once). Match is left for the caller.
  void makeJobs(std::vector<StateSummary> &States);

  /// After the read and buildDiffReport: gathers the shared states' results
  /// as LintSession::run would have returned them, lints the other states,
  /// and records, per kernel, the results that are new in a later state or
  /// absent from it. Tool failures (a config, a plugin, a check that
  /// failed) go to R.Problems, after the report's own. Adjust sees each
  /// state's run before that (the inline ignore comments).
  void finish(DiffReport &R, const AnalysisOptions &Analysis,
              llvm::function_ref<void(RunReport &)> Adjust);

  std::vector<SharedStateLint> Shared;
  /// The base's kernels checked alone (the baseline side of every shared
  /// state), in discovery order.
  std::vector<KernelJob> BaseJobs;
  std::vector<int> BaseJobOf; ///< per base kernel: its job, or -1
  std::vector<KernelOutcome> BaseOutcomes;
  /// The stages a check may read besides those a summary reads: the ones
  /// the enabled checks declare (CheckInfo::Stages), the .source and .ttir
  /// (read when present) and the ptxas resource usage. An untouched kernel
  /// pair holds the same bytes in these too (DiffRead.cpp).
  std::vector<Stage> CheckedStages;

private:
  DiffCheckOptions Opts;
  const std::vector<StateSummary> &States;
  /// The first later state linted after the read (States.size() when none).
  unsigned FirstOwn = 0;
  /// Why the checks stopped before FirstOwn ("" when they did not).
  std::string Failure;
};

/// Reads every kernel of every state once (metadata first, in parallel,
/// one parse per distinct .json, then one task per base kernel and the
/// kernels checked against it, or per other kernel): fills each
/// StateSummary's Kernels and the shared states' check outcomes. Threads
/// as -j.
/// With DeferTwinCounts (an output that shows no counts of a kernel its
/// states share, and no --fail-on), a base kernel whose later kernels are
/// all twins that no check reads (DiffRead.cpp) is summarized without its
/// PTX and SASS counts (KernelSummary::CountsUnmade).
void readStates(std::vector<StateSummary> &States, DiffLint &Lint,
                const FamilyTable &Families, const AnalysisOptions &Analysis,
                unsigned Threads, bool DeferTwinCounts);

/// Gives each of Unmade its PTX and SASS counts (buildDiffReport's
/// CountMaker), in parallel, each from a view of its own kernel.
void makeCounts(llvm::ArrayRef<KernelSummary *> Unmade,
                const FamilyTable &Families, const AnalysisOptions &Analysis,
                unsigned Threads);

} // namespace gestell::driver

#endif
