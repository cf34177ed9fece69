//===- Runner.h - Running the enabled checks over kernels -----------------===//
//
// Kernels are independent: a thread pool runs every enabled check on one
// kernel at a time, each kernel's stages parsed only when a check asks for
// them and dropped when its checks are done. Results are collected per
// kernel and sorted, so the report is the same whatever the thread count.
// A check that fails or throws on a kernel becomes a tool notification for
// that kernel; every other result is still reported.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_RUNNER_H
#define GESTELL_DRIVER_RUNNER_H

#include "Config.h"

#include "gestell/Bundle.h"
#include "gestell/CheckRegistry.h"
#include "gestell/Diagnostic.h"
#include "gestell/KernelView.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class ThreadPoolInterface;
} // namespace llvm

namespace gestell::driver {

/// A problem of the tool, not a finding: an unreadable bundle, a check
/// that failed on a kernel, unreadable metadata. SARIF puts these in
/// invocations[].toolExecutionNotifications.
struct Notification {
  Level Severity = Level::Error;
  std::string Message;
  std::string Kernel;            ///< kernel name, or "" when about no kernel
  std::string CheckId;           ///< or "" when no check is concerned
  std::string File;              ///< the file concerned, or ""
  unsigned Line = 0, Column = 0; ///< in File, when known
};

/// A diagnostic as reported: after suppressions and warnings-as-errors.
struct Result {
  Diagnostic Diag;
  bool Suppressed = false;
  /// SARIF's suppression kind: "external" (a [[suppression]] of the
  /// config) or "inSource" (a `# gestell: ignore[...]` comment).
  std::string SuppressionKind;
  std::string SuppressionReason, SuppressionOrigin;
  bool Promoted = false; ///< a warning made an error by warnings-as-errors
  /// With --baseline (Baseline.h): "new", "unchanged", "updated" or
  /// "absent" (only the baseline has it); "" without a baseline.
  std::string BaselineState;
  /// With --findings-baseline: the findings baseline holds it, so it does
  /// not count toward the exit status (FindingsBaseline.h).
  bool InFindingsBaseline = false;
  /// The folder of the kernel it is about (Kernel::Dir).
  std::string KernelDir;
};

struct PluginRecord {
  std::string Name, Version, Path;
};

/// One kernel to check, with the config that applies to it and, with
/// --baseline, the baseline kernel it matched. K's deferred metadata
/// (DiscoveryOptions::DeferMetadata) is read in its task; a baseline
/// kernel's must be read before (matching reads it).
struct KernelJob {
  Kernel *K = nullptr;
  const EffectiveConfig *Config = nullptr;
  const Kernel *Baseline = nullptr;
  /// Note the Python files its PTX debug info names (RunReport::Sources).
  bool ListSources = false;
};

struct RunReport {
  std::vector<Result> Results; ///< kernel order, then diagnosticLess
  std::vector<Notification> Notifications;
  /// Every check enabled for some kernel, sorted by id (SARIF rules).
  std::vector<const RegisteredCheck *> Rules;
  std::vector<PluginRecord> Plugins;
  unsigned KernelsChecked = 0;
  /// The user's Python files the debug info of the checked kernels names,
  /// for the jobs that asked (KernelJob::ListSources).
  std::set<std::string> Sources;

  /// False when a tool error (error-level notification) happened.
  bool executionSuccessful() const;
  /// 0, 1 (an unsuppressed error-level result that is neither absent nor
  /// in the findings baseline) or 2 (a tool error).
  int exitStatus() const;
};

/// One cause, one finding: findings of one kernel that name the same cause
/// (Diagnostic::Cause) become one, kept by the most severe and, among
/// equals, by the first of the precedence triton-redundant-layout-conversion
/// > rules-blackwell-convert-layout-before-tmem-store >
/// triton-costly-layout-conversion > nvidia-staging-explosion; the others
/// become its notes and related locations, named by check.
std::vector<Diagnostic> mergeByCause(std::vector<Diagnostic> Found);

/// Progress of runChecks on stderr ("gestell: 1200/45000 kernels"), for
/// long runs watched in a terminal: on only when Wanted, stderr is a
/// terminal and the CI environment variable is unset; it starts after a
/// second and erases itself at the end.
void showProgress(bool Wanted);

/// Runs the enabled checks of each job's config on its kernel, Jobs threads
/// at a time (0 = one per core). Appends results and notifications to R.
void runChecks(llvm::ArrayRef<KernelJob> Jobs, unsigned Threads,
               const AnalysisOptions &Analysis, RunReport &R);

/// What the checks gave on one kernel; runChecks gathers them in job order.
struct KernelOutcome {
  std::vector<Result> Results;
  std::vector<Notification> Notifications;
  /// Why checks that read SASS were skipped on a kernel that has a cubin
  /// (no nvdisasm to make its SASS); "" when none was.
  std::string SkippedForSass;
  /// Its TTGIR is Triton 3.1's or older (the triton_gpu dialect), read by
  /// checks that know only the ttg spelling of its layouts and ops.
  bool OldTtgirDialect = false;
  /// KernelJob::ListSources: the Python files of its debug info.
  std::vector<std::string> Sources;
};

/// Runs the enabled checks of Job's config on View, a view of Job.K, with
/// Base, a view of Job.Baseline (or null), as the baseline. The views may
/// have been read before (gestell diff summarizes a kernel and checks it
/// from one parse): the stages each could not read since its markReads()
/// are reported. Releases neither view.
void checkKernel(const KernelJob &Job, KernelView &View, KernelView *Base,
                 const AnalysisOptions &Analysis, KernelOutcome &Out);

/// Appends the outcomes of Jobs (one each, in job order) to R, as runChecks
/// does once its tasks are done.
void gatherOutcomes(llvm::ArrayRef<KernelJob> Jobs,
                    std::vector<KernelOutcome> &&Outcomes, RunReport &R);

/// Reads the deferred metadata of every kernel (loadKernelMetadata), Threads
/// at a time (0 = one per core), for callers that need it before the
/// per-kernel tasks start (matching, --shard).
void loadMetadata(llvm::ArrayRef<Kernel *> Kernels, unsigned Threads);
/// The same on a pool the caller already runs (diff: before matching).
void loadMetadata(llvm::ArrayRef<Kernel *> Kernels,
                  llvm::ThreadPoolInterface &Pool);

} // namespace gestell::driver

#endif
