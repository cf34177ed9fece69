//===- TraceKernels.cpp - The kernels of a TritonParse trace --------------===//
//
// Discovery's pass over a trace: one line at a time, each compilation event
// becomes a Kernel whose stages are labels of the event's files
// (gestell/Trace.h), whose metadata is payload.metadata, and whose cubin
// is the file payload.file_path names, when it is a regular file inside a
// scanned folder or a --trace-cache folder (with every link resolved).
// Nothing a trace says makes gestell read outside those folders.
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/Trace.h"
#include "readers/trace/TraceStore.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace gestell::trace {

namespace {

/// The stage a file of an event holds, by its name's longest known suffix;
/// never the cubin (a trace's file_content holds text only).
std::optional<Stage> stageOfFile(StringRef Name) {
  std::optional<Stage> Best;
  size_t BestLen = 0;
  for (unsigned I = 0; I < NumStages; ++I) {
    Stage S = static_cast<Stage>(I);
    StringRef Suffix = stageSuffix(S);
    if (Name.size() > Suffix.size() && Name.ends_with(Suffix) &&
        Suffix.size() > BestLen) {
      Best = S;
      BestLen = Suffix.size();
    }
  }
  if (Best == Stage::Cubin)
    return std::nullopt;
  return Best;
}

/// An error of the reader or of an event as a problem at its line.
DiscoveryProblem problemOf(Error E, StringRef Trace) {
  DiscoveryProblem P;
  P.Path = Trace.str();
  handleAllErrors(
      std::move(E),
      [&](const InputError &I) {
        P.Path = I.Path;
        P.Message = I.Message;
        P.Line = I.Line;
        P.Column = I.Column;
      },
      [&](const ErrorInfoBase &B) { P.Message = B.message(); });
  return P;
}

/// The cubin an event names, when gestell may read it; else "" and Why.
std::string resolveCubin(StringRef Named, const Trust &T, std::string &Why) {
  if (Named.empty()) {
    Why = "the trace names no .cubin for this kernel";
    return "";
  }
  if (!sys::path::is_absolute(Named, sys::path::Style::posix)) {
    Why = "the trace's cubin path '" + Named.str() + "' is not absolute";
    return "";
  }
  auto Inside = [](StringRef Real, ArrayRef<std::string> Folders) {
    return any_of(Folders,
                  [&](const std::string &F) { return pathIsWithin(Real, F); });
  };
  std::string Real = realPath(Named);
  bool Allowed =
      !Real.empty() && (Inside(Real, T.Roots) || Inside(Real, T.Caches));
  if (Allowed && sys::fs::is_regular_file(Real))
    return Real;
  // A cache from another machine: <cache>/<key folder>/<name>.cubin.
  StringRef Key = sys::path::filename(sys::path::parent_path(Named));
  StringRef File = sys::path::filename(Named);
  if (!Key.empty() && Key != ".." && Key != ".")
    for (const std::string &C : T.Caches) {
      SmallString<256> Candidate(C);
      sys::path::append(Candidate, Key, File);
      std::string R = realPath(Candidate);
      if (!R.empty() && sys::fs::is_regular_file(R) && pathIsWithin(R, C))
        return R;
    }
  if (Allowed)
    Why = "the cubin the trace names (" + Named.str() +
          ") is not a regular file: not read";
  else if (Real.empty())
    Why = "the cubin the trace names (" + Named.str() +
          ") is not on this machine" +
          (T.Caches.empty()
               ? "; --trace-cache=DIR names the Triton cache it was in"
               : " nor in the --trace-cache folders");
  else
    Why = "the cubin the trace names (" + Named.str() +
          ") is outside the scanned folders and the --trace-cache folders: "
          "not read";
  return "";
}

/// Reads the metadata of an event without payload.metadata from its .json
/// file, else from its .ttgir's module attributes.
void metadataFromFiles(const TraceEvent &E, StringRef Trace, unsigned Line,
                       Kernel &K) {
  for (Stage S : {Stage::Metadata, Stage::TTGIR})
    for (const TraceEvent::File &F : E.Files) {
      if (stageOfFile(F.Name) != S ||
          K.path(S) != traceLabel(Trace, Line, F.Name))
        continue;
      if (S == Stage::TTGIR) {
        if (std::optional<KernelMetadata> M = metadataFromTtgirText(F.Text))
          K.Meta = std::make_shared<const KernelMetadata>(std::move(*M));
        return;
      }
      Expected<KernelMetadata> M = parseKernelMetadata(F.Text, K.path(S));
      if (M)
        K.Meta = std::make_shared<const KernelMetadata>(std::move(*M));
      else
        K.Notes.push_back(toString(M.takeError()));
      return;
    }
}

/// The kernel of compilation event E at Line: its stages (labels of the
/// event's files), cubin and metadata. None, with a warning, when the
/// event holds no stage gestell reads.
std::optional<Kernel> kernelOfEvent(TraceEvent &E, StringRef Trace,
                                    unsigned Line, const Trust &T,
                                    std::vector<DiscoveryProblem> &Problems) {
  Kernel K;
  K.Name = E.Name;
  K.Dir = traceLabel(Trace, Line);
  std::vector<std::string> Foreign;
  for (const TraceEvent::File &F : E.Files) {
    std::optional<Stage> St = stageOfFile(F.Name);
    if (!St) {
      Foreign.push_back(F.Name);
      continue;
    }
    // Two files of one stage: the kernel's own (<name>.<stage>) wins.
    if (!K.has(*St) || F.Name == K.Name + stageSuffix(*St).str())
      K.setPath(*St, traceLabel(Trace, Line, F.Name));
  }
  if (K.presentStages().empty()) {
    Problems.push_back(
        {Trace.str(),
         "compilation event of '" + K.Name + "' holds no stage gestell reads" +
             (Foreign.empty() ? std::string()
                              : " (" + join(Foreign, ", ") + ")") +
             ": skipped",
         Level::Warning, Line});
    return std::nullopt;
  }
  std::string Why;
  std::string Cubin = resolveCubin(E.CubinPath, T, Why);
  if (!Cubin.empty())
    K.setPath(Stage::Cubin, Cubin);
  else
    K.AbsentWhy.push_back({Stage::Cubin, Why});
  if (E.Meta)
    K.Meta = std::make_shared<const KernelMetadata>(std::move(*E.Meta));
  else
    metadataFromFiles(E, Trace, Line, K);
  return K;
}

/// What a trace held besides the kernels read, said once.
struct TraceTally {
  unsigned Compilations = 0, Repeats = 0, Kernels = 0;
  std::map<std::string, unsigned> Other; ///< events by type
};

void reportTally(const TraceTally &N, StringRef Trace,
                 std::vector<DiscoveryProblem> &Problems) {
  if (!N.Repeats && N.Other.empty())
    return;
  std::string Msg = utostr(N.Kernels) + " kernel" +
                    (N.Kernels == 1 ? "" : "s") + " from " +
                    utostr(N.Compilations) + " compilation event" +
                    (N.Compilations == 1 ? "" : "s");
  if (N.Repeats)
    Msg += " (" + utostr(N.Repeats) + " of them repeat" +
           (N.Repeats == 1 ? "s" : "") + " a kernel read before: same hash)";
  if (!N.Other.empty()) {
    std::vector<std::string> Parts;
    for (const auto &[Type, Count] : N.Other)
      Parts.push_back(utostr(Count) + " " + Type);
    Msg += "; other events skipped: " + join(Parts, ", ");
  }
  Problems.push_back({Trace.str(), Msg, Level::Remark});
}

void scanTrace(StringRef Trace, bool Named, const Trust &T,
               std::set<std::string> &Seen, std::vector<Kernel> &Out,
               std::vector<DiscoveryProblem> &Problems) {
  Expected<std::unique_ptr<TraceLineReader>> R = TraceLineReader::open(Trace);
  if (!R) {
    Problems.push_back(problemOf(R.takeError(), Trace));
    return;
  }
  std::vector<IndexedEvent> Index;
  TraceTally N;
  bool FirstEventRead = false;
  auto KeepText = [](StringRef Name) {
    return Name.ends_with(".json") || Name.ends_with(".ttgir");
  };
  for (;;) {
    TraceLineReader::Status S = (*R)->next();
    if (S == TraceLineReader::Status::End)
      break;
    if (S == TraceLineReader::Status::Failed) {
      Problems.push_back(problemOf((*R)->takeError(), Trace));
      break;
    }
    unsigned Line = (*R)->lineNumber();
    if (S == TraceLineReader::Status::TooLong) {
      Problems.push_back({Trace.str(),
                          "event longer than " + utostr(MaxTraceEventBytes) +
                              " bytes: not read",
                          Level::Error, Line});
      continue;
    }
    if ((*R)->line().trim().empty())
      continue;
    if (!Seen.empty())
      if (StringRef H = repeatCandidateHash((*R)->line());
          !H.empty() && Seen.count(H.str())) {
        ++N.Compilations;
        ++N.Repeats;
        continue;
      }
    Expected<TraceEvent> E =
        parseTraceEvent((*R)->line(), Trace, Line, KeepText);
    if (!E) {
      DiscoveryProblem P = problemOf(E.takeError(), Trace);
      if (!Named && !FirstEventRead) {
        P.Message =
            "not a TritonParse trace, skipped (its first event: " + P.Message +
            ")";
        P.Severity = Level::Remark;
        Problems.push_back(std::move(P));
        return;
      }
      Problems.push_back(std::move(P));
      continue;
    }
    FirstEventRead = true;
    if (E->Type != "compilation") {
      ++N.Other[E->Type];
      continue;
    }
    ++N.Compilations;
    if (!E->Hash.empty() && Seen.count(E->Hash)) {
      ++N.Repeats;
      continue;
    }
    std::optional<Kernel> K = kernelOfEvent(*E, Trace, Line, T, Problems);
    if (!K)
      continue;
    if (!E->Hash.empty())
      Seen.insert(E->Hash);
    K->Trace = TraceEventRef{Trace.str(), Line, (*R)->lineOffset(),
                             (*R)->lineLength()};
    Index.push_back({Line, (*R)->lineOffset(), (*R)->lineLength(), E->Hash});
    Out.push_back(std::move(*K));
    ++N.Kernels;
  }
  registerTrace(Trace, std::move(Index));
  reportTally(N, Trace, Problems);
}

} // namespace

void scanTraces(ArrayRef<TraceFile> Traces, const Trust &T,
                std::set<std::string> &Seen, std::vector<Kernel> &Out,
                std::vector<DiscoveryProblem> &Problems) {
  for (const TraceFile &Trace : Traces)
    scanTrace(Trace.Path, Trace.Named, T, Seen, Out, Problems);
}

} // namespace gestell::trace
