//===- Runner.cpp - Running the enabled checks over kernels ---------------===//
#include "Runner.h"
#include "ForEachIndex.h"
#include "Report.h"
#include "SameTtgir.h"
#include "Verb.h"

#include "gestell/Check.h"
#include "gestell/SourceLoc.h"
#include "gestell/Trace.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <tuple>

using namespace llvm;

namespace gestell::driver {

bool RunReport::executionSuccessful() const {
  return none_of(Notifications, [](const Notification &N) {
    return N.Severity == Level::Error;
  });
}

int RunReport::exitStatus() const {
  if (!executionSuccessful())
    return ExitFailure;
  for (const Result &R : Results)
    if (!R.Suppressed && !R.InFindingsBaseline &&
        R.Diag.Severity == Level::Error && R.BaselineState != "absent")
      return ExitFindings;
  return ExitOk;
}

namespace {

/// The user's Python files in the PTX's .file table (not Triton's own).
void listSources(KernelView &View, std::vector<std::string> &Out) {
  Expected<const PtxModule &> P = View.ptx();
  if (!P) {
    consumeError(P.takeError()); // reported by the checks that read it
    return;
  }
  for (const std::string &F : P->Files)
    if (StringRef(F).ends_with(".py") && !inTritonPackage(F))
      Out.push_back(F);
}

/// True when the kernel has what the stage needs (for SASS what
/// KernelView::sass() can get; readable metadata for Metadata).
bool stageAvailable(const Kernel &K, Stage S, const AnalysisOptions &Analysis) {
  switch (S) {
  case Stage::SASS:
    return !sassUnavailable(K, Analysis);
  case Stage::Metadata:
    return K.Meta && !K.Meta->FromTtgir;
  default:
    return K.has(S);
  }
}

/// Runs one check on one kernel. Returns the failure, or "" on success.
std::string runCheck(const RegisteredCheck &C, CheckContext &Ctx,
                     CheckInput &In) {
  try {
    std::unique_ptr<Check> Instance = C.Factory(C.Info.Id, Ctx);
    if (!Instance)
      return "its factory made no check";
    if (!Ctx.optionErrors().empty())
      return join(Ctx.optionErrors(), "; ");
    if (Error E = Instance->check(In))
      return toString(std::move(E));
  } catch (const std::exception &E) {
    return std::string("it threw: ") + E.what();
  } catch (...) {
    return "it threw an exception that is not a std::exception";
  }
  return "";
}

/// Checks whose findings about one cause merge, the one that keeps the
/// finding first (docs/checks/README.md, "One cause, one finding"). A check
/// not listed ranks after these, by id.
constexpr StringLiteral CausePrecedence[] = {
    "triton-redundant-layout-conversion",
    "rules-blackwell-convert-layout-before-tmem-store",
    "triton-costly-layout-conversion",
    "nvidia-staging-explosion",
};

size_t causeRank(StringRef CheckId) {
  for (size_t I = 0; I < std::size(CausePrecedence); ++I)
    if (CausePrecedence[I] == CheckId)
      return I;
  return std::size(CausePrecedence);
}

} // namespace

std::vector<Diagnostic> mergeByCause(std::vector<Diagnostic> Found) {
  // Findings that share a cause (file, line, column) are one group; a
  // finding with two causes (a round trip) joins both groups into one.
  std::vector<size_t> Parent(Found.size());
  for (size_t I = 0; I < Found.size(); ++I)
    Parent[I] = I;
  auto Root = [&](size_t I) {
    while (Parent[I] != I)
      I = Parent[I] = Parent[Parent[I]];
    return I;
  };
  std::map<std::tuple<std::string, uint32_t, uint32_t>, size_t> First;
  for (size_t I = 0; I < Found.size(); ++I)
    for (const DiagLoc &C : Found[I].Causes) {
      auto [It, New] = First.try_emplace({C.File, C.Line, C.Column}, I);
      if (!New)
        Parent[Root(I)] = Root(It->second);
    }
  std::map<size_t, std::vector<size_t>> Groups;
  for (size_t I = 0; I < Found.size(); ++I)
    if (!Found[I].Causes.empty())
      Groups[Root(I)].push_back(I);
  std::vector<bool> Drop(Found.size(), false);
  for (auto &[Key, Members] : Groups) {
    if (Members.size() < 2)
      continue;
    // The most severe finding keeps the result; among equals, the check
    // ranked first.
    auto Better = [&](size_t A, size_t B) {
      const Diagnostic &X = Found[A], &Y = Found[B];
      if (X.Severity != Y.Severity)
        return X.Severity > Y.Severity;
      size_t RX = causeRank(X.CheckId), RY = causeRank(Y.CheckId);
      if (RX != RY)
        return RX < RY;
      return X.CheckId < Y.CheckId;
    };
    std::stable_sort(Members.begin(), Members.end(), Better);
    Diagnostic &Keep = Found[Members.front()];
    for (size_t K = 1; K < Members.size(); ++K) {
      Diagnostic &M = Found[Members[K]];
      Keep.Notes.push_back(
          {"also reported by " + M.CheckId + ": " + M.Message, M.Primary});
      Keep.Merged.push_back({M.CheckId, M.Message});
      Drop[Members[K]] = true;
    }
  }
  std::vector<Diagnostic> Out;
  for (size_t I = 0; I < Found.size(); ++I)
    if (!Drop[I])
      Out.push_back(std::move(Found[I]));
  return Out;
}

namespace {

/// One error per artifact that could not be read (whichever checks asked
/// for it, and also when a check carried on without it), naming the checks
/// it stopped; then each check that failed for another reason.
void reportFailures(const Kernel &K, const KernelView &View,
                    const KernelView *Base,
                    ArrayRef<std::pair<std::string, std::string>> Failures,
                    KernelOutcome &Out) {
  std::vector<std::pair<std::string, KernelView::ReadError>> Unread;
  for (KernelView::ReadError &E : View.readErrorsSinceMark())
    Unread.push_back({"", std::move(E)});
  if (Base)
    for (KernelView::ReadError &E : Base->readErrorsSinceMark())
      Unread.push_back({"baseline: ", std::move(E)});
  std::vector<bool> Covered(Failures.size(), false);
  for (const auto &[Prefix, E] : Unread) {
    std::vector<std::string> Stopped;
    for (size_t I = 0; I < Failures.size(); ++I)
      if (StringRef(Failures[I].second).contains(E.Text)) {
        Covered[I] = true;
        Stopped.push_back(Failures[I].first);
      }
    std::string Msg = Prefix + E.Text;
    if (!Stopped.empty())
      Msg += " (kernel '" + K.Name + "'; not checked by " +
             join(Stopped, ", ") + ")";
    Out.Notifications.push_back({Level::Error, Msg, K.Name, "",
                                 E.Path.empty() ? K.Dir : E.Path, E.Line,
                                 E.Column});
  }
  for (size_t I = 0; I < Failures.size(); ++I)
    if (!Covered[I])
      Out.Notifications.push_back(
          {Level::Error,
           "check '" + Failures[I].first + "' failed on kernel '" + K.Name +
               "' in " + K.Dir + ": " + Failures[I].second,
           K.Name, Failures[I].first, K.Dir});
}

/// Whether check C can run on K: every stage it reads is there.
bool ready(const RegisteredCheck &C, const Kernel &K,
           const AnalysisOptions &Analysis) {
  return all_of(C.Info.Stages,
                [&](Stage S) { return stageAvailable(K, S, Analysis); });
}

/// The TTGIR read before the checks, when a check that runs on the kernel
/// needs it (as the SASS is): a check that only may look at it
/// (nvidia-tma-fallback) then shares that parse instead of first scanning
/// the text. An error stays in the view for the checks that ask.
void readTtgirFirst(const KernelJob &Job, KernelView &View,
                    const AnalysisOptions &Analysis) {
  if (any_of(Job.Config->enabled(), [&](const RegisteredCheck *C) {
        return is_contained(C->Info.Stages, Stage::TTGIR) &&
               ready(*C, View.kernel(), Analysis);
      }))
    consumeError(View.ttgir().takeError());
}

} // namespace

void checkKernel(const KernelJob &Job, KernelView &View, KernelView *Base,
                 const AnalysisOptions &Analysis, KernelOutcome &Out) {
  const Kernel &K = *Job.K;
  // A kernel file discovery could not read (its .json) is a located error,
  // as in stats and diff: the run fails (exit 2), the other checks go on.
  for (const std::string &Note : K.Notes)
    Out.Notifications.push_back({Level::Error, Note, K.Name, "", K.Dir});

  CheckInput In{View, Base};
  std::optional<std::string> NoSass =
      K.has(Stage::Cubin) ? sassUnavailable(K, Analysis) : std::nullopt;
  auto readsSass = [](const RegisteredCheck *C) {
    return is_contained(C->Info.Stages, Stage::SASS);
  };
  // The SASS is read (or made by nvdisasm) before the checks that need it:
  // an nvdisasm older than the cubin, or a .sass that holds only such an
  // nvdisasm's error, leaves the kernel without SASS as having none would
  // (those checks skip it; the run says why once). The checks share the
  // parse.
  bool SassGone = false;
  bool MaySass =
      K.has(Stage::SASS) || K.has(Stage::SASSAlt) || K.has(Stage::Cubin);
  if (!NoSass && MaySass && any_of(Job.Config->enabled(), readsSass))
    if (Expected<const SassModule &> S = View.sass(); !S)
      handleAllErrors(
          S.takeError(),
          [&](const MissingStage &M) {
            NoSass = M.Reason;
            SassGone = true;
          },
          [](const ErrorInfoBase &) {}); // the view reports it once

  readTtgirFirst(Job, View, Analysis);

  std::vector<Diagnostic> Found;
  std::vector<std::pair<std::string, std::string>> Failures; // check, why
  bool RanOnTtgir = false;
  for (const RegisteredCheck *C : Job.Config->enabled()) {
    if (!ready(*C, K, Analysis) || (SassGone && readsSass(C))) {
      if (NoSass && readsSass(C))
        Out.SkippedForSass = *NoSass;
      continue;
    }
    RanOnTtgir |= is_contained(C->Info.Stages, Stage::TTGIR);
    CheckContext Ctx(C->Info, Job.Config->options(C->Info.Id));
    std::string Failure = runCheck(*C, Ctx, In);
    if (!Failure.empty()) {
      // What a failed check reported before failing is not trusted.
      Failures.push_back({C->Info.Id, View.ownPaths(Failure)});
      continue;
    }
    for (Diagnostic &D : Ctx.diagnostics()) {
      View.ownPaths(D); // its own files, where it borrowed a twin's parses
      D.CheckId = C->Info.Id;
      D.Kernel = K.Name;
      D.Target = K.target().str();
      Found.push_back(std::move(D));
    }
  }
  // Those checks read the TTGIR: one that Triton 3.1 or older wrote spells
  // the dialect triton_gpu (ttg since triton-lang/triton#5266), and they
  // found none of its layouts or conversions. The run says so once. Only a
  // parse the view already holds is looked at.
  if (const TtgirModule *T = View.ttgirIfRead(); T && RanOnTtgir)
    Out.OldTtgirDialect = any_of(T->moduleAttributes(), [](const auto &A) {
      return A.Name.starts_with("triton_gpu.");
    });
  // One cause, one finding; then warnings-as-errors and suppressions, on
  // the merged finding as a whole.
  for (Diagnostic &D : mergeByCause(std::move(Found))) {
    Result R;
    R.Diag = std::move(D);
    R.KernelDir = K.Dir;
    if (R.Diag.Severity == Level::Warning &&
        Job.Config->warningAsError(R.Diag.CheckId)) {
      R.Diag.Severity = Level::Error;
      R.Promoted = true;
    }
    if (const Suppression *S = Job.Config->suppression(R.Diag)) {
      R.Suppressed = true;
      R.SuppressionKind = "external";
      R.SuppressionReason = S->Reason;
      R.SuppressionOrigin = S->Origin;
    }
    Out.Results.push_back(std::move(R));
  }
  for (std::string &N : View.readerNotes())
    Out.Notifications.push_back(
        {Level::Remark, std::move(N), K.Name, "", K.Dir});
  reportFailures(K, View, Base, Failures, Out);
  if (Job.ListSources && K.has(Stage::PTX))
    listSources(View, Out.Sources);
  std::stable_sort(Out.Results.begin(), Out.Results.end(),
                   [](const Result &A, const Result &B) {
                     return diagnosticLess(A.Diag, B.Diag);
                   });
}

void loadMetadata(ArrayRef<Kernel *> Kernels, unsigned Threads) {
  if (none_of(Kernels, [](const Kernel *K) { return K->MetadataDeferred; }))
    return;
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  loadMetadata(Kernels, Pool);
}

void loadMetadata(ArrayRef<Kernel *> Kernels, ThreadPoolInterface &Pool) {
  forEachIndex(Pool, 0, Kernels.size(),
               [&](size_t I) { loadKernelMetadata(*Kernels[I]); });
}

namespace {
std::atomic<bool> ProgressOn{false};

/// Prints "\rgestell: N/M kernels" at most five times a second, from the
/// task that finished a kernel, once the run has taken a second.
class Progress {
public:
  explicit Progress(size_t Total)
      : Total(Total), Start(std::chrono::steady_clock::now()),
        On(ProgressOn && Total > 1) {}
  ~Progress() {
    if (Shown)
      errs() << "\r\x1b[K"; // erase the line: the report follows
  }
  void done() {
    size_t N = ++Finished;
    if (!On)
      return;
    auto Now = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> L(M, std::try_to_lock);
    if (!L || Now - Start < std::chrono::seconds(1) ||
        Now - Last < std::chrono::milliseconds(200))
      return;
    Last = Now;
    Shown = true;
    errs() << "\rgestell: " << N << "/" << Total << " kernels checked";
    errs().flush();
  }

private:
  size_t Total;
  std::chrono::steady_clock::time_point Start, Last;
  bool On, Shown = false;
  std::atomic<size_t> Finished{0};
  std::mutex M;
};
} // namespace

void showProgress(bool Wanted) {
  ProgressOn = Wanted && sys::Process::StandardErrIsDisplayed() &&
               !sys::Process::GetEnv("CI");
}

void runChecks(ArrayRef<KernelJob> Jobs, unsigned Threads,
               const AnalysisOptions &Analysis, RunReport &R) {
  std::vector<KernelOutcome> Outcomes(Jobs.size());
  std::vector<const Kernel *> Kernels;
  for (const KernelJob &J : Jobs)
    Kernels.push_back(J.K);
  Progress P(Jobs.size());
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  // Kernels of TritonParse traces a window at a time, the window's events
  // held in memory (gestell/Trace.h); without traces, one window.
  forEachTraceWindow(Kernels, [&](size_t Begin, size_t End) {
    // Kernels whose .ttgir holds the same bytes run one after the other,
    // each offered the previous one's parses (SameTtgir.h); each kernel's
    // go once the next kernel's checks are done.
    TtgirGroups Groups = groupBySameTtgir(Kernels, Begin, End, Pool);
    forEachIndex(Pool, 0, Groups.size(), [&](size_t G) {
      viewGroup(Groups.group(G), Kernels, Analysis,
                [&](size_t I, KernelView &View) {
                  const KernelJob &Job = Jobs[I];
                  loadKernelMetadata(*Job.K);
                  std::optional<KernelView> Base;
                  if (Job.Baseline)
                    Base.emplace(*Job.Baseline, Analysis);
                  checkKernel(Job, View, Base ? &*Base : nullptr, Analysis,
                              Outcomes[I]);
                  P.done();
                });
    });
  });
  gatherOutcomes(Jobs, std::move(Outcomes), R);
}

void gatherOutcomes(ArrayRef<KernelJob> Jobs,
                    std::vector<KernelOutcome> &&Outcomes, RunReport &R) {
  // Said once per run, per reason: which kernels the SASS checks did not see.
  std::map<std::string, std::vector<std::string>> NoSass;
  std::vector<std::string> OldDialect;
  // Reserved whole: gestell diff keeps these results until its report is
  // written, and growth by doubling would keep up to half of it unused.
  size_t Results = R.Results.size();
  for (const KernelOutcome &O : Outcomes)
    Results += O.Results.size();
  R.Results.reserve(Results);
  for (size_t I = 0; I < Jobs.size(); ++I) {
    KernelOutcome &O = Outcomes[I];
    std::move(O.Results.begin(), O.Results.end(),
              std::back_inserter(R.Results));
    std::move(O.Notifications.begin(), O.Notifications.end(),
              std::back_inserter(R.Notifications));
    R.Sources.insert(O.Sources.begin(), O.Sources.end());
    if (!O.SkippedForSass.empty())
      NoSass[O.SkippedForSass].push_back(kernelLabel(*Jobs[I].K));
    if (O.OldTtgirDialect)
      OldDialect.push_back(kernelLabel(*Jobs[I].K));
    O = KernelOutcome(); // its moved-from vectors, freed now
  }
  Outcomes = std::vector<KernelOutcome>();
  for (const auto &[Why, Kernels] : NoSass)
    R.Notifications.push_back(
        {Level::Remark,
         std::to_string(Kernels.size()) + " of " + std::to_string(Jobs.size()) +
             " kernels have no SASS, so the checks that read it did not run "
             "on them: " +
             Why + ":" + kernelList(Kernels),
         "", "", ""});
  if (!OldDialect.empty())
    R.Notifications.push_back(
        {Level::Remark,
         std::to_string(OldDialect.size()) + " of " +
             std::to_string(Jobs.size()) +
             " kernels have TTGIR in the triton_gpu dialect (Triton 3.1 and "
             "older; ttg since the rename of late 2024), whose layouts and "
             "conversions the checks that read TTGIR do not know, so they "
             "found nothing there:" +
             kernelList(OldDialect),
         "", "", ""});
  R.KernelsChecked += Jobs.size();
}

} // namespace gestell::driver
