//===- CheckVerb.cpp - gestell check: lint kernels ------------------------===//
//
// `gestell check [OPTIONS] PATH...`, also `gestell PATH...` (the default
// verb: its options are registered on the top-level command too). Exit 0:
// no error-level result; 1: error-level results (warnings promoted by
// --warnings-as-errors included); 2: the tool could not do its job.
//
//===----------------------------------------------------------------------===//
#include "CommonOptions.h"
#include "Config.h"
#include "FindingsBaseline.h"
#include "InlineIgnores.h"
#include "LintSession.h"
#include "ReadScope.h"
#include "Report.h"
#include "Verb.h"

#include "gestell/KernelView.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace gestell::driver {

cl::SubCommand &checkCommand() {
  static cl::SubCommand Cmd("check", "Lint kernels with the enabled checks "
                                     "(the default verb)");
  return Cmd;
}

namespace {

// The options only check reads; those it shares with other verbs are in
// CommonOptions.cpp.
#define GESTELL_CHECK_OPTION                                                   \
  cl::sub(checkCommand()), cl::sub(cl::SubCommand::getTopLevel())

cl::list<std::string> Paths(cl::Positional, cl::desc("PATH..."),
                            GESTELL_CHECK_OPTION, cl::cat(inputCategory()));
cl::opt<std::string>
    BaselineOpt("baseline",
                cl::desc("Baseline build: checks that compare with a "
                         "baseline get its matching kernel"),
                cl::value_desc("PATH"), GESTELL_CHECK_OPTION,
                cl::cat(inputCategory()));
cl::opt<std::string> ShardOpt(
    "shard",
    cl::desc("Lint only part I of N (1 <= I <= N): the kernels whose name "
             "and target hash to it, the same on every machine and in any "
             "order; the N SARIF files merge into the whole run's "
             "(docs/ci.md)"),
    cl::value_desc("I/N"), GESTELL_CHECK_OPTION, cl::cat(inputCategory()));

cl::opt<std::string> WarningsAsErrorsOpt(
    "warnings-as-errors",
    cl::desc("Comma-separated globs of checks whose warnings are errors"),
    cl::value_desc("GLOBS"), GESTELL_CHECK_OPTION, cl::cat(checksCategory()));
cl::opt<bool> ReportUnusedIgnoresOpt(
    "report-unused-ignores",
    cl::desc("Warn about each '# gestell: ignore[...]' comment in the "
             "kernels' Python sources that suppresses no finding"),
    GESTELL_CHECK_OPTION, cl::cat(checksCategory()));
cl::opt<bool> ListChecksOpt("list-checks",
                            cl::desc("List the enabled checks and exit"),
                            GESTELL_CHECK_OPTION, cl::cat(checksCategory()));
cl::opt<bool>
    DumpConfigOpt("dump-config",
                  cl::desc("Print the configuration in effect, with every "
                           "enabled check's options, and exit"),
                  GESTELL_CHECK_OPTION, cl::cat(checksCategory()));
cl::opt<bool> ExplainConfigOpt(
    "explain-config",
    cl::desc("Say for each check which source enabled or disabled it"),
    GESTELL_CHECK_OPTION, cl::cat(checksCategory()));
cl::opt<bool> VerifyConfigOpt(
    "verify-config",
    cl::desc("Check the configuration (unknown keys, globs matching no "
             "check, unknown options) and exit"),
    GESTELL_CHECK_OPTION, cl::cat(checksCategory()));

enum class Format { Text, Json, Sarif };
cl::opt<Format> FormatOpt(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::Json, "json", "JSON (docs/json.md)"),
               clEnumValN(Format::Sarif, "sarif",
                          "SARIF 2.1.0 for GitHub code scanning")),
    GESTELL_CHECK_OPTION, cl::cat(outputCategory()));
cl::opt<bool>
    QuietOpt("quiet",
             cl::desc("Print only the findings and errors: no summary line, no "
                      "notes or warnings about the run itself"),
             GESTELL_CHECK_OPTION, cl::cat(outputCategory()));
cl::alias QuietShort("q", cl::desc("Alias for --quiet"),
                     cl::aliasopt(QuietOpt));
cl::opt<bool> ShowSuppressedOpt(
    "show-suppressed",
    cl::desc("Text: also print suppressed findings and those of the "
             "findings baseline, each marked"),
    GESTELL_CHECK_OPTION, cl::cat(outputCategory()));
cl::opt<bool> VerboseOpt(
    "verbose",
    cl::desc("Text: print each headline whole, its layouts in full (by "
             "default long layouts are cut to their names there and given "
             "in full in a note)"),
    GESTELL_CHECK_OPTION, cl::cat(outputCategory()));
cl::opt<std::string> FindingsBaselineOpt(
    "findings-baseline",
    cl::desc("Report as new, and count toward the exit status, only the "
             "findings this file (from --write-findings-baseline) does not "
             "hold"),
    cl::value_desc("FILE"), GESTELL_CHECK_OPTION, cl::cat(outputCategory()));
cl::opt<std::string> WriteFindingsBaselineOpt(
    "write-findings-baseline",
    cl::desc("Write the current findings to FILE, for --findings-baseline"),
    cl::value_desc("FILE"), GESTELL_CHECK_OPTION, cl::cat(outputCategory()));

int fail(const Twine &Message) {
  errs() << "gestell: error: " << Message << "\n";
  return ExitFailure;
}

void printNotification(const Notification &N) {
  errs() << "gestell: " << sarifLevel(N.Severity) << ": " << N.Message << "\n";
}

int listChecks(const LintSession &S) {
  const EffectiveConfig &Cfg = S.primaryConfig();
  size_t Width = 0;
  for (const RegisteredCheck *C : Cfg.enabled())
    Width = std::max(Width, C->Info.Id.size());
  outs() << "Enabled checks:\n";
  if (Cfg.enabled().empty())
    outs() << "    (none)\n";
  for (const RegisteredCheck *C : Cfg.enabled()) {
    outs() << "    " << C->Info.Id;
    outs().indent(Width - C->Info.Id.size() + 2) << C->Info.Summary << "\n";
  }
  return ExitOk;
}

Error withPrefix(StringRef Prefix, Error E) {
  return createStringError(inconvertibleErrorCode(),
                           Prefix + toString(std::move(E)));
}

/// The findings of --findings-baseline (none without it).
Expected<std::optional<FindingsBaseline>> knownFindings() {
  if (!FindingsBaselineOpt.empty() && !WriteFindingsBaselineOpt.empty())
    return createStringError(inconvertibleErrorCode(),
                             "--findings-baseline and "
                             "--write-findings-baseline together: write the "
                             "baseline from a run without one");
  if (FindingsBaselineOpt.empty())
    return std::nullopt;
  Expected<FindingsBaseline> B = readFindingsBaseline(FindingsBaselineOpt);
  if (!B)
    return B.takeError();
  return std::optional<FindingsBaseline>(std::move(*B));
}

/// What the session needs of the command line: paths, config, plugins,
/// rule packs, trace caches and the command line's globs.
Expected<LintOptions> lintOptions() {
  LintOptions Opts;
  Opts.Paths.assign(Paths.begin(), Paths.end());
  Opts.ConfigFile = opts::ConfigFile;
  Opts.Load.assign(opts::Plugins.begin(), opts::Plugins.end());
  Opts.AllowConfigPlugins = opts::AllowConfigPlugins;
  Opts.KeepGoing = opts::KeepGoing;
  Opts.ListSources = ReportUnusedIgnoresOpt;
  Expected<std::vector<std::string>> Caches = traceCachesFromOptions();
  if (!Caches)
    return Caches.takeError();
  Opts.TraceCaches = std::move(*Caches);
  if (Error E = appendGlobs(Opts.CommandLine.Checks, opts::Checks, "--checks"))
    return withPrefix("--checks: ", std::move(E));
  if (Error E = appendGlobs(Opts.CommandLine.WarningsAsErrors,
                            WarningsAsErrorsOpt, "--warnings-as-errors"))
    return withPrefix("--warnings-as-errors: ", std::move(E));
  return Opts;
}

/// The part --shard asks for (all of it without the option).
Expected<Shard> shardFromOption() {
  if (!ShardOpt.getNumOccurrences())
    return Shard();
  return parseShard(ShardOpt);
}

Expected<ReportOptions> reportOptions() {
  ReportOptions Report;
  Report.ToolVersion = GESTELL_VERSION;
  Report.DocsUrl = GESTELL_DOCS_URL;
  Report.ShowSuppressed = ShowSuppressedOpt;
  Report.Verbose = VerboseOpt;
  for (const std::string &M : opts::PathMaps)
    if (Error E = Report.Paths.add(M))
      return E;
  return Report;
}

int verifyConfigMode(const LintSession &Session) {
  const EffectiveConfig &Cfg = Session.primaryConfig();
  std::vector<std::string> Problems =
      verifyConfig(Cfg, Session.registry(), Session.storedOptions(Cfg));
  for (const std::string &P : Problems)
    outs() << P << "\n";
  if (Problems.empty())
    outs() << "No problems found in "
           << (Cfg.file().Path.empty() ? "the default configuration"
                                       : Cfg.file().Path)
           << "\n";
  return Problems.empty() ? ExitOk : ExitFindings;
}

/// --verify-config, --list-checks, --dump-config and --explain-config: the
/// exit status of the one given, or nullopt to lint. The config's warnings
/// are printed on the way (but for --verify-config, which lists them).
std::optional<int> runConfigMode(const LintSession &Session) {
  if (VerifyConfigOpt)
    return verifyConfigMode(Session);
  for (const std::string &W : Session.configWarnings())
    errs() << "gestell: warning: " << W << "\n";
  if (ListChecksOpt)
    return listChecks(Session);
  if (DumpConfigOpt) {
    const EffectiveConfig &Cfg = Session.primaryConfig();
    dumpConfig(outs(), Cfg, Session.storedOptions(Cfg));
    return ExitOk;
  }
  if (ExplainConfigOpt) {
    explainConfig(outs(), Session.primaryConfig(), Session.registry());
    return ExitOk;
  }
  return std::nullopt;
}

bool anyCheckEnabled(const LintSession &Session) {
  for (size_t I = 0; I < Paths.size(); ++I)
    if (!Session.configForPath(I).enabled().empty())
      return true;
  return false;
}

bool writeReport(const RunReport &R, const ReportOptions &Report) {
  return writeOutput(opts::OutputFile,
                     "gestell: error: ", [&](raw_ostream &OS) {
                       switch (FormatOpt) {
                       case Format::Text:
                         writeText(OS, R, Report);
                         break;
                       case Format::Json:
                         writeJson(OS, R, Report);
                         break;
                       case Format::Sarif:
                         writeSarif(OS, R, Report);
                         break;
                       }
                     });
}

/// What the summary line counts.
struct Tally {
  unsigned Counts[3] = {0, 0, 0}; ///< reported, by level
  unsigned Suppressed = 0, InBaseline = 0;
  std::map<std::string, unsigned> ByCheck; ///< reported findings per check
  std::map<std::string, unsigned> States;  ///< --baseline: new, absent, ...
};

Tally tally(const RunReport &R) {
  Tally T;
  for (const Result &Res : R.Results) {
    if (!Res.BaselineState.empty())
      ++T.States[Res.BaselineState];
    if (Res.BaselineState == "absent")
      continue;
    if (Res.Suppressed)
      ++T.Suppressed;
    else if (Res.InFindingsBaseline)
      ++T.InBaseline;
    else {
      ++T.Counts[static_cast<unsigned>(Res.Diag.Severity)];
      ++T.ByCheck[Res.Diag.CheckId];
    }
  }
  return T;
}

/// The summary line on stderr, then what became of the findings baseline.
void printSummary(const RunReport &R, const Shard &Part, bool HasKnown,
                  unsigned Fixed) {
  Tally T = tally(R);
  errs() << "gestell: " << R.KernelsChecked << " kernel"
         << (R.KernelsChecked == 1 ? "" : "s") << " checked";
  if (!Part.all())
    errs() << " in shard " << Part.Index << "/" << Part.Count;
  errs() << ": " << T.Counts[2] << " error(s), " << T.Counts[1]
         << " warning(s), " << T.Counts[0] << " remark(s)";
  if (T.Suppressed)
    errs() << ", " << T.Suppressed << " suppressed";
  if (HasKnown)
    errs() << ", " << T.InBaseline << " in the findings baseline";
  if (!BaselineOpt.empty()) {
    errs() << "; against the baseline:";
    for (StringRef S : {"new", "updated", "unchanged", "absent"})
      errs() << " " << T.States[S.str()] << " " << S
             << (S == "absent" ? "" : ",");
  }
  // Per check, in the summary itself (ruff's --statistics, clang-tidy's
  // tally): which checks the counts come from.
  if (!T.ByCheck.empty()) {
    errs() << " (";
    for (auto It = T.ByCheck.begin(); It != T.ByCheck.end(); ++It)
      errs() << (It == T.ByCheck.begin() ? "" : ", ") << It->first << " "
             << It->second;
    errs() << ")";
  }
  errs() << "\n";
  if (Fixed && Part.all())
    errs() << "gestell: note: " << Fixed << " finding"
           << (Fixed == 1 ? " of the findings baseline is"
                          : "s of the findings baseline are")
           << " gone: --write-findings-baseline=" << FindingsBaselineOpt
           << " records the findings as they are now\n";
  if (!WriteFindingsBaselineOpt.empty())
    errs() << "gestell: wrote the findings baseline "
           << WriteFindingsBaselineOpt << "\n";
}

/// Runs the checks, applies the ignore comments and the findings baseline,
/// and writes the report, the findings baseline and the summary.
int lint(const LintSession &Session, const AnalysisOptions &Analysis,
         const Shard &Part, ReportOptions &Report,
         const std::optional<FindingsBaseline> &Known) {
  showProgress(!QuietOpt);
  RunReport R = Session.run(BaselineOpt, opts::Jobs, Analysis, Part);
  // Ignore comments: the Python sources are read only under the
  // --path-map targets and the current directory.
  ReadScope Sources;
  Sources.allowCurrentDirectory();
  for (const std::string &T : Report.Paths.targets())
    Sources.allow(T);
  applyInlineIgnores(R, Report.Paths, Sources, ReportUnusedIgnoresOpt);
  Report.Sources = &Sources;
  unsigned Fixed = Known ? applyFindingsBaseline(R, *Known) : 0;
  for (const Notification &N : R.Notifications)
    if (!QuietOpt || N.Severity == Level::Error)
      printNotification(N);

  if (!writeReport(R, Report))
    return ExitFailure;
  if (!WriteFindingsBaselineOpt.empty() &&
      !writeFindingsBaseline(WriteFindingsBaselineOpt, R))
    return ExitFailure;
  if (!QuietOpt)
    printSummary(R, Part, Known.has_value(), Fixed);
  return R.exitStatus();
}

int runCheckVerb() {
  Expected<std::optional<FindingsBaseline>> Known = knownFindings();
  if (!Known)
    return fail(toString(Known.takeError()));
  Expected<LintOptions> Opts = lintOptions();
  if (!Opts)
    return fail(toString(Opts.takeError()));
  Expected<Shard> Part = shardFromOption();
  if (!Part)
    return fail(toString(Part.takeError()));
  Expected<ReportOptions> Report = reportOptions();
  if (!Report)
    return fail(toString(Report.takeError()));

  bool Mode =
      ListChecksOpt || DumpConfigOpt || ExplainConfigOpt || VerifyConfigOpt;
  if (!Mode && Opts->Paths.empty())
    return fail("no PATH given: gestell check [OPTIONS] PATH... (see "
                "gestell --help)");

  Expected<std::unique_ptr<LintSession>> S = LintSession::create(*Opts);
  if (!S)
    return fail(toString(S.takeError()));
  if (std::optional<int> Status = runConfigMode(**S))
    return *Status;

  // Nothing to run is a mistake in --checks or the config, not a clean
  // result (clang-tidy: "no checks enabled").
  if (!anyCheckEnabled(**S))
    return fail("no checks enabled: --checks and the configuration leave "
                "none on (--list-checks shows what is enabled)");

  // SASS for cubin-only kernels (a Triton cache) comes from nvdisasm, into
  // the tool's own cache; without one the SASS checks skip those kernels
  // and the run says so once.
  Expected<AnalysisOptions> Analysis = analysisFromOptions();
  if (!Analysis)
    return fail(toString(Analysis.takeError()));
  return lint(**S, *Analysis, *Part, *Report, *Known);
}

VerbRegistration Registration(checkCommand(), runCheckVerb, /*IsDefault=*/true);

} // namespace
} // namespace gestell::driver
