//===- Stats.cpp - gestell stats: instruction counts per kernel -----------===//
//
// `gestell stats [--format=text|json] [-o FILE] [--nvdisasm=PATH] [-j N]
// PATH...`: per kernel, cubin resources and, for PTX and SASS, instruction
// counts by family and by opcode, in total and in loops.
//
// Kernels are independent: each is read, counted and released on a worker
// thread (llvm::DefaultThreadPool); the main thread writes results in
// discovery order as they become ready, so the output is the same for any
// -j and memory holds only the kernels in flight. Exit 0: every kernel was
// read; 2: a path or a file could not be read (the others are still
// reported), no kernel was found, or the output could not be written.
// Missing stages (no SASS in a cache) are not failures.
//
//===----------------------------------------------------------------------===//
#include "Stats.h"
#include "CommonOptions.h"
#include "Config.h"
#include "Report.h"
#include "SameTtgir.h"
#include "Verb.h"

#include "gestell/KernelView.h"
#include "gestell/Trace.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <future>
#include <map>

using namespace llvm;

namespace gestell::driver {

cl::SubCommand &statsCommand() {
  static cl::SubCommand Cmd("stats",
                            "Instruction counts by family and opcode per "
                            "kernel and stage (PTX, SASS), with cubin "
                            "resources");
  return Cmd;
}

namespace {

// The options only stats reads; those it shares with other verbs are in
// CommonOptions.cpp.
cl::list<std::string> Paths(cl::Positional, cl::OneOrMore, cl::desc("PATH..."),
                            cl::sub(statsCommand()), cl::cat(inputCategory()));
enum class Want { Ptx, Sass, Ttgir };
cl::bits<Want> StagesOpt(
    "stages",
    cl::desc("Stages to read besides metadata and cubin (comma-separated; "
             "default: all). Fewer stages, less to read"),
    cl::CommaSeparated,
    cl::values(clEnumValN(Want::Ptx, "ptx", "PTX instruction counts"),
               clEnumValN(Want::Sass, "sass", "SASS instruction counts"),
               clEnumValN(Want::Ttgir, "ttgir",
                          "TTGIR layout conversions and loops")),
    cl::sub(statsCommand()), cl::cat(inputCategory()));

/// Whether a stage was asked for (all of them when --stages is not given).
bool wanted(Want W) { return StagesOpt.getBits() == 0 || StagesOpt.isSet(W); }

enum class Format { Text, Json };
cl::opt<Format>
    FormatOpt("format", cl::desc("Output format"), cl::init(Format::Text),
              cl::values(clEnumValN(Format::Text, "text", "tables for people"),
                         clEnumValN(Format::Json, "json",
                                    "one JSON object (docs/stats-json.md)")),
              cl::sub(statsCommand()), cl::cat(outputCategory()));
cl::opt<unsigned> OpcodesOpt("opcodes",
                             cl::desc("Text format: opcodes listed per stage, "
                                      "most frequent first (0 = all)"),
                             cl::value_desc("N"), cl::init(10),
                             cl::sub(statsCommand()),
                             cl::cat(outputCategory()));

/// Reads what stats needs of the kernel of V.
KernelStats collect(KernelView &V, const FamilyTable &Families) {
  const Kernel &K = V.kernel();
  KernelStats S;
  MetricStages Stages;
  Stages.Ptx = wanted(Want::Ptx);
  Stages.Sass = wanted(Want::Sass);
  static_cast<KernelMetrics &>(S) = collectKernelMetrics(V, Families, Stages);
  S.K = &K;
  if (wanted(Want::Ttgir) && K.has(Stage::TTGIR)) {
    if (Expected<const TtgirModule &> T = V.ttgir())
      S.Ttgir = reportTtgir(*T);
    else
      S.Problems.push_back(toString(T.takeError()));
  }
  return S;
}

constexpr StringRef Me = "gestell stats: ";

int fail(Error E) {
  errs() << Me << toString(std::move(E)) << "\n";
  return ExitFailure;
}

/// Writes the stats of D's kernels to OS as they complete; true when a
/// kernel could not be read whole.
bool writeStats(raw_ostream &OS, Discovery &D, const AnalysisOptions &Opts) {
  bool Failed = false;
  const FamilyTable &Families = FamilyTable::active();
  std::unique_ptr<StatsWriter> W =
      FormatOpt == Format::Json
          ? makeJsonStatsWriter(OS)
          : makeTextStatsWriter(OS, StatsOutputOptions{OpcodesOpt});
  W->begin(Families);

  // Results are written in kernel order as they complete.
  // Kernels of TritonParse traces go a window at a time, the window's
  // events held in memory (gestell/Trace.h); without traces, one window.
  const size_t N = D.Kernels.size();
  std::vector<std::optional<KernelStats>> Results(N);
  std::vector<const Kernel *> Kernels;
  for (const Kernel &K : D.Kernels)
    Kernels.push_back(&K);
  DefaultThreadPool Pool(hardware_concurrency(opts::Jobs));
  // Why kernels have no SASS -> which kernels, said once at the end.
  std::map<std::string, std::vector<std::string>> NoSass;
  forEachTraceWindow(Kernels, [&](size_t Begin, size_t End) {
    // Kernels whose .ttgir holds the same bytes are one task, each offered
    // the previous one's parses (SameTtgir.h); a kernel's parses go once
    // the next one is read.
    TtgirGroups Groups = groupBySameTtgir(Kernels, Begin, End, Pool);
    std::vector<size_t> GroupOf(End - Begin);
    std::vector<std::shared_future<void>> Done;
    Done.reserve(Groups.size());
    for (size_t G = 0; G < Groups.size(); ++G) {
      for (size_t I : Groups.group(G))
        GroupOf[I - Begin] = G;
      Done.push_back(Pool.async([&, G] {
        viewGroup(Groups.group(G), Kernels, Opts, [&](size_t I, KernelView &V) {
          loadKernelMetadata(D.Kernels[I]);
          Results[I] = collect(V, Families);
        });
      }));
    }
    for (size_t I = Begin; I < End; ++I) {
      Done[GroupOf[I - Begin]].wait();
      KernelStats &S = *Results[I];
      W->add(S);
      for (const std::string &P : S.Problems)
        errs() << Me << P << "\n";
      Failed |= !S.Problems.empty();
      for (const auto &[Stage, Why] : S.Missing)
        if (Stage == "sass")
          NoSass[Why].push_back(kernelLabel(*S.K));
      Results[I].reset();
    }
  });
  Pool.wait();
  W->end(D.Problems);

  for (const auto &[Why, Kernels] : NoSass)
    errs() << Me << "note: " << Kernels.size() << " of " << N
           << " kernels have no SASS: " << Why << kernelList(Kernels) << "\n";
  return Failed;
}

int runStats() {
  // Instruction families: the built-in table, with the [[family]] entries
  // of --config or else the nearest .gestell.toml in front.
  std::vector<std::string> PathList(Paths.begin(), Paths.end());
  if (Error E = useConfigFamilies(opts::ConfigFile, PathList))
    return fail(std::move(E));
  // Each kernel's metadata is read in its own task (writeStats).
  DiscoveryOptions Discover;
  Discover.DeferMetadata = true;
  Expected<std::vector<std::string>> Caches = traceCachesFromOptions();
  if (!Caches)
    return fail(Caches.takeError());
  Discover.TraceCaches = std::move(*Caches);
  Discovery D = discoverKernels(Paths, Discover);
  for (const DiscoveryProblem &P : D.Problems)
    errs() << Me << levelPrefix(P.Severity) << P.where() << ": " << P.Message
           << "\n";
  if (D.Kernels.empty()) {
    errs() << Me << "no kernels found\n";
    return ExitFailure;
  }
  Expected<AnalysisOptions> Analysis = analysisFromOptions();
  if (!Analysis)
    return fail(Analysis.takeError());

  // Output: stdout, or a temporary file renamed over -o at the end; the
  // kernels are written as they complete.
  bool Failed = hasErrors(D);
  bool Written = writeOutput(opts::OutputFile, Me, [&](raw_ostream &OS) {
    Failed |= writeStats(OS, D, *Analysis);
  });
  return Written && !Failed ? ExitOk : ExitFailure;
}

VerbRegistration Registration(statsCommand(), runStats);

} // namespace
} // namespace gestell::driver
