//===- Diff.cpp - gestell diff: what changed below the source -------------===//
//
// `gestell diff [--label=NAME]... [--format=text|json|md|html] [-o FILE]
// [--fail-on=EXPR]... STATE STATE [STATE...]`: the first state (a bundle
// path) is the base, every later one is compared with it, kernel by kernel
// (KernelMatch.h). docs/diff.md describes the report and its JSON form.
// The enabled checks run on every state too (DiffChecks.cpp; --checks,
// --config, --load as for gestell check): the report lists the results
// that are new in a later state, and those that no longer fire.
//
// Every kernel of every state is read once, on a worker thread, for its
// metrics, match key, TTGIR summary and check results, and its parses
// released (DiffLint.h); the report is built and written once all are in,
// sorted, so output is the same for any -j.
//
// Exit: 2 when it could not do the job (a bad --fail-on expression, a state
// that cannot be read or holds no kernel, an unreadable file, an output that
// cannot be written); else 1 when a --fail-on gate held for a matched
// kernel; else 2 when a gate could not be decided for a matched kernel (a
// metric it names is missing, e.g. no SASS); else 0.
//
//===----------------------------------------------------------------------===//
#include "CommonOptions.h"
#include "Config.h"
#include "DiffLint.h"
#include "DiffModel.h"
#include "InlineIgnores.h"
#include "ReadScope.h"
#include "Verb.h"

#include "gestell/KernelView.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace gestell::driver {

cl::SubCommand &diffCommand() {
  static cl::SubCommand Cmd("diff",
                            "Compare builds: kernels that appeared or "
                            "vanished, instruction families and opcodes that "
                            "moved, TTGIR ops added or removed per loop, "
                            "resources; gate CI with --fail-on");
  return Cmd;
}

namespace {

// The options only diff reads; those it shares with other verbs are in
// CommonOptions.cpp.
#define GESTELL_DIFF_OPTION cl::sub(diffCommand())

cl::list<std::string> StatePaths(cl::Positional, cl::OneOrMore,
                                 cl::desc("STATE STATE [STATE...]"),
                                 GESTELL_DIFF_OPTION, cl::cat(inputCategory()));
cl::list<std::string> PairOpt(
    "pair",
    cl::desc("Compare the kernels of folder DIR_A (in the base) with those "
             "of their names in DIR_B (in a later state), whatever their "
             "configurations; resolves ties between equally close kernels "
             "(repeatable)"),
    cl::value_desc("DIR_A:DIR_B"), GESTELL_DIFF_OPTION,
    cl::cat(inputCategory()));
cl::list<std::string>
    FailOn("fail-on",
           cl::desc("Exit 1 when EXPR holds for any matched kernel "
                    "(docs/expressions.md), e.g. 'head.staging.loop > 2 * "
                    "base.staging.loop'"),
           cl::value_desc("EXPR"), GESTELL_DIFF_OPTION,
           cl::cat(checksCategory()));

cl::list<std::string>
    Labels("label",
           cl::desc("Name of the next state, in order (default: the last "
                    "component of its path)"),
           cl::value_desc("NAME"), GESTELL_DIFF_OPTION,
           cl::cat(outputCategory()));
enum class Format { Text, Json, Markdown, Html };
cl::opt<Format> FormatOpt(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "tables for a terminal"),
               clEnumValN(Format::Json, "json",
                          "one JSON object (docs/diff.md)"),
               clEnumValN(Format::Markdown, "md",
                          "Markdown for a PR comment or CI job summary"),
               clEnumValN(Format::Html, "html",
                          "one self-contained HTML page with charts")),
    GESTELL_DIFF_OPTION, cl::cat(outputCategory()));
cl::opt<unsigned> OpcodesOpt("opcodes",
                             cl::desc("Opcodes listed per kernel, most moved "
                                      "first (0 = all that moved)"),
                             cl::value_desc("N"), cl::init(10),
                             GESTELL_DIFF_OPTION, cl::cat(outputCategory()));

constexpr StringRef Me = "gestell diff: ";

/// Labels: the given ones, then the last path component, made unique.
std::vector<std::string> stateLabels() {
  std::vector<std::string> Out;
  StringMap<unsigned> Uses;
  for (size_t I = 0; I < StatePaths.size(); ++I) {
    std::string L;
    if (I < Labels.size())
      L = Labels[I];
    else {
      StringRef P = sys::path::remove_leading_dotslash(StatePaths[I]);
      P = P.rtrim("/");
      L = sys::path::filename(P).str();
      if (L.empty() || L == "." || L == "..")
        L = "state" + std::to_string(I);
    }
    if (unsigned N = ++Uses[L]; N > 1)
      L += "#" + std::to_string(N);
    Out.push_back(L);
  }
  return Out;
}

int fail(Error E) {
  errs() << Me << toString(std::move(E)) << "\n";
  return ExitFailure;
}

/// The --fail-on gates, or false when one does not parse (said on stderr,
/// with a caret under the column).
bool parseGates(const FamilyTable &Families, std::vector<Expr> &Gates) {
  for (const std::string &Text : FailOn) {
    Expected<Expr> E = Expr::parseCondition(Text, Families, "--fail-on");
    if (!E) {
      printExprError(errs(), E.takeError(), Text);
      return false;
    }
    Gates.push_back(std::move(*E));
  }
  return true;
}

/// --pair=DIR_A:DIR_B, split at the ':' whose sides are both folders
/// (paths may hold ':').
Expected<std::vector<std::pair<std::string, std::string>>> parsePairs() {
  std::vector<std::pair<std::string, std::string>> Pairs;
  for (StringRef P : PairOpt) {
    std::optional<std::pair<std::string, std::string>> Split;
    for (size_t At = P.find(':'); At != StringRef::npos;
         At = P.find(':', At + 1))
      if (sys::fs::is_directory(P.take_front(At)) &&
          sys::fs::is_directory(P.drop_front(At + 1))) {
        Split = {P.take_front(At).str(), P.drop_front(At + 1).str()};
        break;
      }
    if (!Split)
      return createStringError(inconvertibleErrorCode(),
                               "--pair=" + P +
                                   ": expected DIR_A:DIR_B, two folders that "
                                   "exist");
    Pairs.push_back(std::move(*Split));
  }
  return Pairs;
}

/// Finds the kernels of every state (their metadata is read later, in
/// parallel); false when a state cannot be read or holds no kernel.
bool discoverStates(std::vector<StateSummary> &States,
                    ArrayRef<std::string> TraceCaches) {
  std::vector<std::string> Names = stateLabels();
  bool Failed = false;
  for (size_t I = 0; I < States.size(); ++I) {
    StateSummary &S = States[I];
    S.Label = Names[I];
    S.Path = StatePaths[I];
    DiscoveryOptions Discover;
    Discover.DeferMetadata = true;
    Discover.TraceCaches = TraceCaches;
    Discover.AlsoScanned.assign(StatePaths.begin(), StatePaths.end());
    S.Found = discoverKernels({StatePaths[I]}, Discover);
    for (const DiscoveryProblem &P : S.Found.Problems)
      errs() << Me << levelPrefix(P.Severity) << P.where() << ": " << P.Message
             << "\n";
    Failed |= hasErrors(S.Found);
    if (S.Found.Kernels.empty() && !hasErrors(S.Found)) {
      errs() << Me << StatePaths[I] << ": no kernels found\n";
      Failed = true;
    }
  }
  return !Failed;
}

/// Fills in the Python lines of the report's sites and applies the ignore
/// comments to the checks' results. Source files the debug info names are
/// read only inside the states, the --path-map targets and the current
/// directory.
void readSources(DiffReport &R, DiffLint &Lint, const PathMap &Maps,
                 const AnalysisOptions &Opts) {
  ReadScope Scope;
  for (const std::string &P : StatePaths)
    Scope.allow(P);
  for (const std::string &T : Maps.targets())
    Scope.allow(T);
  Scope.allowCurrentDirectory();
  fillSourceLines(R, Maps, Scope);
  // A `# gestell: ignore[...]` comment silences a check in diff as in check.
  Lint.finish(R, Opts, [&](RunReport &Run) {
    applyInlineIgnores(Run, Maps, Scope, /*ReportUnused=*/false);
  });
}

void writeDiff(raw_ostream &OS, const DiffReport &R) {
  switch (FormatOpt) {
  case Format::Text:
    writeDiffText(OS, R);
    break;
  case Format::Json:
    writeDiffJson(OS, R);
    break;
  case Format::Markdown:
    writeDiffMarkdown(OS, R);
    break;
  case Format::Html:
    writeDiffHtml(OS, R);
    break;
  }
}

/// Reads the states, compares them and writes the report.
int compareStates(std::vector<StateSummary> &States, ArrayRef<Expr> Gates,
                  const PathMap &Maps, DiffOptions Opts) {
  Expected<AnalysisOptions> Analysis = analysisFromOptions();
  if (!Analysis)
    return fail(Analysis.takeError());
  const FamilyTable &Families = FamilyTable::active();

  // The checks' sessions first (their configs and plugins), then one read
  // of every kernel for the summaries and the checks (DiffLint.h).
  DiffLint Lint(States,
                DiffCheckOptions{opts::Checks, opts::ConfigFile,
                                 std::vector<std::string>(opts::Plugins.begin(),
                                                          opts::Plugins.end()),
                                 opts::AllowConfigPlugins, opts::Jobs});
  // Text, Markdown and HTML show no counts of a kernel its states share
  // (JSON lists every kernel's); a gate reads every matched kernel's.
  bool DeferTwinCounts = Gates.empty() && FormatOpt != Format::Json;
  readStates(States, Lint, Families, *Analysis, opts::Jobs, DeferTwinCounts);

  DiffReport R =
      buildDiffReport(States, Families, Gates, std::move(Opts),
                      [&](ArrayRef<KernelSummary *> Unmade) {
                        makeCounts(Unmade, Families, *Analysis, opts::Jobs);
                      });
  readSources(R, Lint, Maps, *Analysis);
  for (const std::string &P : R.Problems)
    errs() << Me << P << "\n";
  for (const std::string &U : R.GateUnknown)
    errs() << Me << "note: gate not decided for " << U << "\n";

  bool Written = writeOutput(opts::OutputFile, Me,
                             [&](raw_ostream &OS) { writeDiff(OS, R); });
  if (!Written || !R.Problems.empty())
    return ExitFailure;
  if (!R.GateHeld.empty())
    return ExitFindings;
  // A gate that could not be decided for a matched kernel is not a pass.
  return R.GateUnknown.empty() ? ExitOk : ExitFailure;
}

int runDiff() {
  std::vector<std::string> Paths(StatePaths.begin(), StatePaths.end());
  if (Error E = useConfigFamilies(opts::ConfigFile, Paths))
    return fail(std::move(E));
  if (StatePaths.size() < 2) {
    errs() << Me
           << "give at least two states (the base, then the builds to "
              "compare with it)\n";
    return ExitFailure;
  }
  if (Labels.size() > StatePaths.size()) {
    errs() << Me << Labels.size() << " labels for " << StatePaths.size()
           << " states\n";
    return ExitFailure;
  }
  std::vector<Expr> Gates;
  if (!parseGates(FamilyTable::active(), Gates))
    return ExitFailure;
  PathMap Maps;
  for (StringRef M : opts::PathMaps)
    if (Error E = Maps.add(M))
      return fail(std::move(E));
  Expected<std::vector<std::pair<std::string, std::string>>> Pairs =
      parsePairs();
  if (!Pairs)
    return fail(Pairs.takeError());
  Expected<std::vector<std::string>> Caches = traceCachesFromOptions();
  if (!Caches)
    return fail(Caches.takeError());

  std::vector<StateSummary> States(StatePaths.size());
  if (!discoverStates(States, *Caches))
    return ExitFailure;
  return compareStates(States, Gates, Maps,
                       DiffOptions{OpcodesOpt, std::move(*Pairs)});
}

VerbRegistration Registration(diffCommand(), runDiff);

} // namespace
} // namespace gestell::driver
