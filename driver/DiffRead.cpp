//===- DiffRead.cpp - Every kernel of every state read once ---------------===//
//
// DiffLint.h says what is read when. Each task holds the views of one base
// kernel and of the later kernels checked against it (at most one per
// state, one at a time), or of one other kernel; it leaves their summaries
// and check outcomes in slots of their own, so the order of the tasks
// changes nothing.
//
//===----------------------------------------------------------------------===//
#include "Baseline.h"
#include "DiffLint.h"
#include "ForEachIndex.h"

#include "gestell/Input.h"
#include "gestell/KernelView.h"
#include "gestell/utils/ModuleConversions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <map>

using namespace llvm;

namespace gestell::driver {

namespace {

/// A kernel's TTGIR read ahead of the rest of it, for matching: its key and
/// TTGIR summary, or the error that stopped the read.
struct TtgirAhead {
  MatchKey Key;
  std::shared_ptr<const TtgirSummary> Ttgir;
  std::optional<std::string> Problem;
};

/// What a .ttgir read ahead gives every kernel of its name and bytes.
struct TtgirRead {
  std::optional<TtgirKeyParts> Parts; ///< none: it did not read
  std::shared_ptr<const TtgirSummary> Ttgir;
  std::optional<std::string> Problem; ///< names the file read
};

TtgirRead readTtgir(const Kernel &K) {
  TtgirRead R;
  Expected<std::unique_ptr<TtgirModule>> M = parseTtgir(K.path(Stage::TTGIR));
  if (!M) {
    R.Problem = toString(M.takeError());
    return R;
  }
  R.Parts = ttgirKeyParts(**M, K.Name);
  R.Ttgir = std::make_shared<TtgirSummary>(summarizeTtgir(**M));
  return R;
}

/// K's key and TTGIR from Read, a read of its .ttgir or of one with the
/// same bytes (null: K has no TTGIR).
TtgirAhead aheadOf(const Kernel &K, const TtgirRead *Read) {
  TtgirAhead A;
  A.Key = matchKeyOf(K, nullptr);
  if (Read) {
    if (Read->Parts)
      addTtgirParts(A.Key, *Read->Parts);
    A.Ttgir = Read->Ttgir;
    A.Problem = Read->Problem;
  }
  addIdentity(A.Key, K);
  return A;
}

/// Whether Base's summary can be lent to a kernel with its artifacts: it
/// names no file of its own kernel (a problem, a reader note, a reason for
/// a missing stage).
bool lendable(const KernelSummary &Base) {
  const KernelMetrics &BM = *Base.Metrics;
  return BM.Problems.empty() && BM.Notes.empty() &&
         none_of(BM.Missing, [&](const auto &M) {
           return StringRef(M.second).contains(Base.K->Dir);
         });
}

/// The kernel's summary from its view (and the TTGIR read ahead, if it
/// was). With OnlyTwins (its later kernels all hold its bytes) its TTGIR
/// summary, when they can share it (lendable), is left unmade
/// (TtgirSummary::Unmade); with NoCounts too, so are its PTX and SASS
/// counts (KernelSummary::CountsUnmade).
KernelSummary summarize(KernelView &V, const FamilyTable &Families,
                        const std::string &StatePath,
                        std::optional<TtgirAhead> &&Ahead,
                        bool OnlyTwins = false, bool NoCounts = false) {
  const Kernel &K = V.kernel();
  KernelSummary S;
  S.K = &K;
  S.StatePath = &StatePath;
  S.CountsUnmade = OnlyTwins && NoCounts;
  MetricStages Stages;
  Stages.Ptx = Stages.Sass = !S.CountsUnmade;
  auto Metrics = std::make_shared<KernelMetrics>(
      collectKernelMetrics(V, Families, Stages));
  S.Metrics = Metrics;
  if (Ahead) {
    if (Ahead->Problem)
      Metrics->Problems.push_back(std::move(*Ahead->Problem));
    S.Key = std::move(Ahead->Key);
    S.Ttgir = std::move(Ahead->Ttgir);
    return S;
  }
  const TtgirModule *M = nullptr;
  if (K.has(Stage::TTGIR)) {
    if (Expected<const TtgirModule &> T = V.ttgir())
      M = &*T;
    else
      Metrics->Problems.push_back(toString(T.takeError()));
  }
  S.Key = matchKeyOf(K, M);
  if (M && OnlyTwins && lendable(S)) {
    auto Unmade = std::make_shared<TtgirSummary>();
    Unmade->Unmade = K.path(Stage::TTGIR).str();
    S.Ttgir = std::move(Unmade);
  } else if (M) {
    // The view's conversions: the checks that run next share them.
    if (Expected<ModuleConversions &> Convs = V.conversions())
      S.Ttgir = std::make_shared<TtgirSummary>(summarizeTtgir(*Convs));
    else
      consumeError(Convs.takeError()); // its TTGIR read: never here
  }
  return S;
}

/// Whether later kernel L reads as base kernel B does: the same name, both
/// read from folders (not traces) without discovery notes, the same stages
/// present, and every file a summary reads (metadata, TTGIR, PTX, cubin,
/// the SASS rendering KernelView::sass picks) with the same bytes. A
/// kernel a build left untouched (most of them, between two builds) is
/// summarized once.
bool sameArtifacts(const Kernel &B, const Kernel &L) {
  if (B.Name != L.Name || B.Trace || L.Trace || !B.Notes.empty() ||
      !L.Notes.empty() || !B.AbsentWhy.empty() || !L.AbsentWhy.empty())
    return false;
  for (unsigned S = 0; S < NumStages; ++S)
    if (B.has(Stage(S)) != L.has(Stage(S)))
      return false;
  Stage Sass = B.has(Stage::SASS) ? Stage::SASS : Stage::SASSAlt;
  for (Stage S :
       {Stage::Metadata, Stage::TTGIR, Stage::PTX, Stage::Cubin, Sass})
    if (B.has(S) && !sameArtifactBytes(B.path(S), L.path(S)))
      return false;
  return true;
}

/// Whether L, a kernel with B's artifacts (sameArtifacts), also holds B's
/// bytes in each of Stages that B has: the files a check reads beyond a
/// summary's (DiffLint::CheckedStages).
bool sameCheckInputs(const Kernel &B, const Kernel &L, ArrayRef<Stage> Stages) {
  return all_of(Stages, [&](Stage S) {
    return !B.has(S) || sameArtifactBytes(B.path(S), L.path(S));
  });
}

/// The summary of L, a kernel with Base's artifacts (sameArtifacts), made
/// from Base's: what it counted is L's too, and shared with it; only the
/// paths differ, and they are L's own. None when Base's summary is not
/// lendable: then L is summarized from its view.
std::optional<KernelSummary> summaryAs(const KernelSummary &Base,
                                       const Kernel &L,
                                       const std::string &StatePath,
                                       std::optional<TtgirAhead> &Ahead) {
  if (!lendable(Base))
    return std::nullopt;
  KernelSummary S;
  S.K = &L;
  S.StatePath = &StatePath;
  S.Metrics = Base.Metrics;
  S.CountsUnmade = Base.CountsUnmade;
  S.Ttgir = Base.Ttgir; // the same .ttgir bytes
  // Its own key, when it was read ahead for matching: the key's program
  // digest comes from the .source, which sameArtifacts does not compare.
  S.Key = Ahead ? std::move(Ahead->Key) : Base.Key;
  Ahead.reset();
  return S;
}

/// One task: a base kernel (if any) and the later kernels (state, index)
/// read with it.
struct Unit {
  std::optional<unsigned> Base;
  std::vector<std::pair<unsigned, unsigned>> Later;
};

/// Per state, per kernel: its TTGIR when it was read ahead for matching.
using AheadTable = std::vector<std::vector<std::optional<TtgirAhead>>>;

/// The index of a kernel of state S in its kernels.
unsigned indexIn(const StateSummary &S, const Kernel *K) {
  return K - S.Found.Kernels.data();
}

/// For each file of Files (its tag, its path; "" for none), the index of
/// the first file with the same tag and bytes: a later state's kernel that
/// a build left untouched, or a copy of a cache, is read once. A file that
/// cannot be read is its own first (its read then reports it).
std::vector<size_t>
firstWithSameBytes(ArrayRef<std::pair<StringRef, StringRef>> Files,
                   ThreadPoolInterface &Pool) {
  std::vector<std::optional<std::pair<uint64_t, uint64_t>>> Digest(
      Files.size());
  forEachIndex(Pool, 0, Files.size(), [&](size_t I) {
    if (Files[I].second.empty())
      return;
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        openArtifact(Files[I].second, Content::Binary);
    if (!Buf) {
      consumeError(Buf.takeError());
      return;
    }
    XXH128_hash_t H = xxh3_128bits(arrayRefFromStringRef((*Buf)->getBuffer()));
    Digest[I] = {H.low64, H.high64};
  });
  std::map<std::tuple<StringRef, uint64_t, uint64_t>, size_t> First;
  std::vector<size_t> FirstOf(Files.size());
  for (size_t I = 0; I < Files.size(); ++I) {
    FirstOf[I] = I;
    if (Digest[I])
      FirstOf[I] =
          First
              .try_emplace(
                  {Files[I].first, Digest[I]->first, Digest[I]->second}, I)
              .first->second;
  }
  return FirstOf;
}

/// Every kernel's metadata, which matching reads, in parallel; kernels
/// whose .json holds the same bytes share one parse (each reads its own
/// when the first does not parse: the error names the file).
void loadAllMetadata(std::vector<StateSummary> &States,
                     ThreadPoolInterface &Pool) {
  std::vector<Kernel *> All;
  std::vector<std::pair<StringRef, StringRef>> Files;
  for (StateSummary &S : States)
    for (Kernel &K : S.Found.Kernels) {
      All.push_back(&K);
      Files.push_back(
          {"", K.MetadataDeferred ? K.path(Stage::Metadata) : StringRef()});
    }
  std::vector<size_t> FirstOf = firstWithSameBytes(Files, Pool);
  std::vector<Kernel *> Firsts;
  for (size_t I = 0; I < All.size(); ++I)
    if (FirstOf[I] == I)
      Firsts.push_back(All[I]);
  loadMetadata(Firsts, Pool);
  forEachIndex(Pool, 0, All.size(), [&](size_t I) {
    const Kernel &First = *All[FirstOf[I]];
    if (FirstOf[I] == I)
      return;
    if (First.Meta) {
      All[I]->Meta = First.Meta;
      All[I]->MetadataDeferred = false;
    } else {
      loadKernelMetadata(*All[I]);
    }
  });
}

/// The TTGIR of the kernels Read names (state, kernel), read ahead into
/// Ahead. The kernels of one name whose .ttgir holds the same bytes (a
/// later state's kernel a build left untouched, copies of one cache) share
/// one parse: the first of them in Read parses, the others take its key
/// parts and summary.
void readAhead(const std::vector<StateSummary> &States,
               ArrayRef<std::pair<size_t, size_t>> Read, AheadTable &Ahead,
               ThreadPoolInterface &Pool) {
  auto kernelAt = [&](size_t R) -> const Kernel & {
    return States[Read[R].first].Found.Kernels[Read[R].second];
  };
  std::vector<std::pair<StringRef, StringRef>> Files;
  for (size_t R = 0; R < Read.size(); ++R)
    Files.push_back({kernelAt(R).Name, kernelAt(R).path(Stage::TTGIR)});
  // Each kernel's leader: the first in Read of its name and bytes.
  std::vector<size_t> LeaderOf = firstWithSameBytes(Files, Pool);
  std::vector<size_t> Leaders;
  for (size_t R = 0; R < Read.size(); ++R)
    if (LeaderOf[R] == R && kernelAt(R).has(Stage::TTGIR))
      Leaders.push_back(R);
  std::vector<std::optional<TtgirRead>> Reads(Read.size());
  forEachIndex(Pool, 0, Leaders.size(), [&](size_t L) {
    Reads[Leaders[L]] = readTtgir(kernelAt(Leaders[L]));
  });
  forEachIndex(Pool, 0, Read.size(), [&](size_t R) {
    const std::optional<TtgirRead> &Lead = Reads[LeaderOf[R]];
    // A leader's error names its file: the others read their own.
    std::optional<TtgirRead> Own;
    if (LeaderOf[R] != R && Lead && Lead->Problem)
      Own = readTtgir(kernelAt(R));
    const std::optional<TtgirRead> &Used = Own ? Own : Lead;
    auto [S, I] = Read[R];
    Ahead[S][I] = aheadOf(kernelAt(R), Used ? &*Used : nullptr);
  });
}

/// Which base kernel each job of the shared states is checked against. The
/// TTGIR of the kernels whose cheap keys collide is read first, once,
/// whichever states need it, into Ahead.
void matchJobs(std::vector<StateSummary> &States, DiffLint &Lint,
               AheadTable &Ahead, ThreadPoolInterface &Pool) {
  const size_t N = States.size();
  const std::vector<Kernel> &Bs = States[0].Found.Kernels;
  std::vector<BaselineMatcher> Matchers;
  std::vector<std::vector<bool>> Need(N);
  for (size_t S = 0; S < N; ++S)
    Need[S].assign(States[S].Found.Kernels.size(), false);
  for (SharedStateLint &L : Lint.Shared) {
    std::vector<const Kernel *> Current;
    for (const KernelJob &J : L.Jobs)
      Current.push_back(J.K);
    Matchers.emplace_back(Current, Bs);
    for (size_t J = 0; J < L.Jobs.size(); ++J)
      if (Matchers.back().needsFullKey(false, J))
        Need[L.State][indexIn(States[L.State], L.Jobs[J].K)] = true;
    for (size_t B = 0; B < Bs.size(); ++B)
      if (Matchers.back().needsFullKey(true, B))
        Need[0][B] = true;
  }
  std::vector<std::pair<size_t, size_t>> Read; // (state, kernel)
  for (size_t S = 0; S < N; ++S)
    for (size_t I = 0; I < Need[S].size(); ++I)
      if (Need[S][I])
        Read.push_back({S, I});
  readAhead(States, Read, Ahead, Pool);
  for (size_t W = 0; W < Lint.Shared.size(); ++W) {
    SharedStateLint &L = Lint.Shared[W];
    BaselineMatcher &M = Matchers[W];
    for (size_t J = 0; J < L.Jobs.size(); ++J)
      if (M.needsFullKey(false, J))
        M.setFullKey(
            false, J,
            Ahead[L.State][indexIn(States[L.State], L.Jobs[J].K)]->Key);
    for (size_t B = 0; B < Bs.size(); ++B)
      if (M.needsFullKey(true, B))
        M.setFullKey(true, B, Ahead[0][B]->Key);
    L.Match = M.finish();
    for (size_t J = 0; J < L.Jobs.size(); ++J)
      if (L.Match[J])
        L.Jobs[J].Baseline = &Bs[*L.Match[J]];
  }
}

/// A state's path, absolute, as discovery makes its kernels' folders.
std::string rootOf(const StateSummary &S) {
  SmallString<256> Root(S.Path);
  sys::fs::make_absolute(Root);
  sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  return std::string(Root);
}

/// Where kernel K sits in the state at Root: its folder below Root (its
/// folder's name, outside Root) and its name.
std::string placeOf(StringRef Root, const Kernel &K) {
  StringRef Dir = K.Dir;
  if (!Dir.consume_front(Root))
    Dir = sys::path::filename(K.Dir);
  return (Dir + "\n" + K.Name).str();
}

/// The tasks: each base kernel with the later kernels checked against it,
/// or found at its place, then every other later kernel alone.
std::vector<Unit> makeUnits(const std::vector<StateSummary> &States,
                            const DiffLint &Lint) {
  const size_t N = States.size();
  std::vector<Unit> Units(States[0].Found.Kernels.size());
  for (unsigned B = 0; B < Units.size(); ++B)
    Units[B].Base = B;
  std::vector<std::vector<bool>> Placed(N);
  for (size_t S = 1; S < N; ++S)
    Placed[S].assign(States[S].Found.Kernels.size(), false);
  for (const SharedStateLint &L : Lint.Shared)
    for (size_t J = 0; J < L.Jobs.size(); ++J)
      if (L.Match[J]) {
        unsigned I = indexIn(States[L.State], L.Jobs[J].K);
        Units[*L.Match[J]].Later.push_back({L.State, I});
        Placed[L.State][I] = true;
      }
  // A kernel no check pairs with a base kernel (checks off, or no unique
  // match) joins the base kernel at its place, if any: it is read after it,
  // and takes its summary if untouched (readLater). It is still checked
  // without a baseline kernel.
  StringMap<unsigned> BaseAt;
  const std::string BaseRoot = rootOf(States[0]);
  for (unsigned B = 0; B < States[0].Found.Kernels.size(); ++B)
    BaseAt.try_emplace(placeOf(BaseRoot, States[0].Found.Kernels[B]), B);
  for (unsigned S = 1; S < N; ++S) {
    const std::string Root = rootOf(States[S]);
    for (unsigned I = 0; I < Placed[S].size(); ++I) {
      if (Placed[S][I])
        continue;
      auto It = BaseAt.find(placeOf(Root, States[S].Found.Kernels[I]));
      if (It != BaseAt.end())
        Units[It->second].Later.push_back({S, I});
      else
        Units.push_back({std::nullopt, {{S, I}}});
    }
  }
  return Units;
}

/// Reads the kernels of one task: each kernel's summary and, for the
/// shared states, its check outcomes, in slots of its own.
class UnitReader {
public:
  UnitReader(std::vector<StateSummary> &States, DiffLint &Lint,
             const FamilyTable &Families, const AnalysisOptions &Analysis,
             AheadTable &Ahead, bool DeferTwinCounts)
      : States(States), Lint(Lint), Families(Families), Analysis(Analysis),
        Ahead(Ahead), LintOf(States.size(), nullptr),
        DeferTwinCounts(DeferTwinCounts && Lint.allShared()) {
    for (SharedStateLint &L : Lint.Shared)
      LintOf[L.State] = &L;
  }

  void read(const Unit &U) const {
    // Which later kernels hold the base kernel's bytes (sameArtifacts).
    std::vector<bool> Twin(U.Later.size(), false);
    if (U.Base)
      for (size_t J = 0; J < U.Later.size(); ++J)
        Twin[J] = sameArtifacts(
            States[0].Found.Kernels[*U.Base],
            States[U.Later[J].first].Found.Kernels[U.Later[J].second]);
    bool Untouched = untouched(U, Twin);
    std::optional<KernelView> BaseView;
    // With only twins and no check run on either side, the diff shows
    // nothing of the kernel's counts unless matching pairs it otherwise.
    if (U.Base)
      readBase(*U.Base, BaseView, !Twin.empty() && !is_contained(Twin, false),
               !Untouched, DeferTwinCounts && (Untouched || !Lint.anyChecks()));
    for (size_t J = 0; J < U.Later.size(); ++J)
      readLater(U.Later[J].first, U.Later[J].second,
                BaseView ? &*BaseView : nullptr, U.Base, Twin[J], Untouched);
    if (BaseView)
      BaseView->release();
  }

private:
  /// Whether the unit's base kernel is checked in no shared state against
  /// a kernel that differs from it: in each, the kernel checked against it
  /// is a twin (Twin) that holds its bytes in every file a check reads.
  /// Then neither side's checks run (DiffLint.h).
  bool untouched(const Unit &U, const std::vector<bool> &Twin) const {
    if (!U.Base || Lint.Shared.empty() || Lint.BaseJobOf[*U.Base] < 0)
      return false;
    const Kernel &B = States[0].Found.Kernels[*U.Base];
    for (const SharedStateLint &L : Lint.Shared) {
      bool Paired = false;
      for (size_t J = 0; J < U.Later.size(); ++J) {
        auto [S, I] = U.Later[J];
        if (S != L.State || L.JobOf[I] < 0 || L.Jobs[L.JobOf[I]].Baseline != &B)
          continue;
        if (!Twin[J] ||
            !sameCheckInputs(B, States[S].Found.Kernels[I], Lint.CheckedStages))
          return false;
        Paired = true;
      }
      if (!Paired)
        return false;
    }
    return true;
  }

  void readBase(unsigned B, std::optional<KernelView> &View, bool OnlyTwins,
                bool Check, bool NoCounts) const {
    View.emplace(States[0].Found.Kernels[B], Analysis);
    States[0].Kernels[B] =
        summarize(*View, Families, States[0].Path, std::move(Ahead[0][B]),
                  OnlyTwins, NoCounts);
    if (int J = Lint.BaseJobOf.empty() ? -1 : Lint.BaseJobOf[B];
        Check && J >= 0) {
      View->markReads();
      checkKernel(Lint.BaseJobs[J], *View, nullptr, Analysis,
                  Lint.BaseOutcomes[J]);
    }
  }

  /// Kernel I of state S; BaseView is the unit's base kernel B, the one it
  /// is checked against (by construction), if any. A kernel with B's
  /// artifacts (IsTwin) borrows B's parses (its summary and results name
  /// its own files) and takes B's summary where it is lendable. With
  /// Untouched, a kernel checked against B is not checked.
  void readLater(unsigned S, unsigned I, KernelView *BaseView,
                 std::optional<unsigned> B, bool IsTwin, bool Untouched) const {
    StateSummary &St = States[S];
    const Kernel &K = St.Found.Kernels[I];
    KernelView View(K, Analysis);
    std::optional<KernelSummary> Twin;
    if (BaseView && IsTwin) {
      View.borrowParsed(*BaseView);
      Twin = summaryAs(States[0].Kernels[*B], K, St.Path, Ahead[S][I]);
    }
    St.Kernels[I] =
        Twin ? std::move(*Twin)
             : summarize(View, Families, St.Path, std::move(Ahead[S][I]));
    SharedStateLint *L = LintOf[S];
    if (L && L->JobOf[I] >= 0 &&
        !(Untouched && L->Jobs[L->JobOf[I]].Baseline)) {
      const KernelJob &Job = L->Jobs[L->JobOf[I]];
      KernelView *Base = nullptr;
      if (Job.Baseline) {
        Base = BaseView;
        Base->markReads();
      }
      View.markReads();
      checkKernel(Job, View, Base, Analysis, L->Outcomes[L->JobOf[I]]);
    }
    View.release();
  }

  std::vector<StateSummary> &States;
  DiffLint &Lint;
  const FamilyTable &Families;
  const AnalysisOptions &Analysis;
  AheadTable &Ahead;
  std::vector<SharedStateLint *> LintOf; ///< the shared lint of each state
  /// readStates' DeferTwinCounts, when no later state is linted on its own
  /// (its checks could then tell twins apart: DiffLint::allShared).
  bool DeferTwinCounts;
};

} // namespace

void readStates(std::vector<StateSummary> &States, DiffLint &Lint,
                const FamilyTable &Families, const AnalysisOptions &Analysis,
                unsigned Threads, bool DeferTwinCounts) {
  const size_t N = States.size();
  DefaultThreadPool Pool(hardware_concurrency(Threads));

  // 1. Metadata, which matching reads.
  loadAllMetadata(States, Pool);
  for (StateSummary &S : States)
    S.Kernels.resize(S.Found.Kernels.size());

  // 2. Which base kernel each later kernel is checked against: needed only
  // when a check runs.
  Lint.makeJobs(States);
  AheadTable Ahead(N);
  for (size_t S = 0; S < N; ++S)
    Ahead[S].resize(States[S].Found.Kernels.size());
  if (Lint.anyChecks())
    matchJobs(States, Lint, Ahead, Pool);

  // 3. The tasks.
  UnitReader Reader(States, Lint, Families, Analysis, Ahead, DeferTwinCounts);
  std::vector<Unit> Units = makeUnits(States, Lint);
  forEachIndex(Pool, 0, Units.size(), [&](size_t I) { Reader.read(Units[I]); });
}

void makeCounts(ArrayRef<KernelSummary *> Unmade, const FamilyTable &Families,
                const AnalysisOptions &Analysis, unsigned Threads) {
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  forEachIndex(Pool, 0, Unmade.size(), [&](size_t I) {
    KernelSummary &S = *Unmade[I];
    KernelView View(*S.K, Analysis);
    MetricStages Stages;
    Stages.Resources = false;
    KernelMetrics Counts = collectKernelMetrics(View, Families, Stages);
    View.release();
    // Its own metrics now (twins shared them): the resources and problems
    // read before, then what the counts added.
    auto M = std::make_shared<KernelMetrics>(*S.Metrics);
    M->Ptx = std::move(Counts.Ptx);
    M->Sass = std::move(Counts.Sass);
    M->SassFile = std::move(Counts.SassFile);
    append_range(M->Missing, Counts.Missing);
    append_range(M->Problems, Counts.Problems);
    append_range(M->Notes, Counts.Notes);
    S.Metrics = std::move(M);
    S.CountsUnmade = false;
  });
}

} // namespace gestell::driver
