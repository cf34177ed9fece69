//===- CheckVerb.cpp - gestell check: lint kernels ------------------------===//
//
// `gestell check [OPTIONS] PATH...`, also `gestell PATH...` (the default
// verb: its options are registered on the top-level command too). Exit 0:
// no error-level result; 1: error-level results (warnings promoted by
// --warnings-as-errors included); 2: the tool could not do its job.
//
//===----------------------------------------------------------------------===//
#include "Config.h"
#include "FindingsBaseline.h"
#include "InlineIgnores.h"
#include "LintSession.h"
#include "OccupancyReport.h"
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
namespace {

cl::SubCommand CheckCmd("check", "Lint kernels with the enabled checks "
                                 "(the default verb)");

#define GESTELL_CHECK_OPTION                                                   \
  cl::sub(CheckCmd), cl::sub(cl::SubCommand::getTopLevel()),                   \
      cl::cat(gestellCategory())

cl::list<std::string> Paths(cl::Positional, cl::desc("PATH..."),
                            GESTELL_CHECK_OPTION);
cl::opt<std::string>
    ChecksOpt("checks",
              cl::desc("Comma-separated globs that enable (\"nvidia-*\") or "
                       "disable (\"-nvidia-*\") checks, after the config's"),
              cl::value_desc("GLOBS"), GESTELL_CHECK_OPTION);
cl::opt<std::string> ConfigOpt("config",
                               cl::desc("Use this config file instead of the "
                                        "nearest .gestell.toml"),
                               cl::value_desc("FILE"), GESTELL_CHECK_OPTION);
enum class Format { Text, Json, Sarif };
cl::opt<Format> FormatOpt(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::Json, "json", "JSON (docs/json.md)"),
               clEnumValN(Format::Sarif, "sarif",
                          "SARIF 2.1.0 for GitHub code scanning")),
    GESTELL_CHECK_OPTION);
cl::opt<std::string> OutputOpt("o",
                               cl::desc("Write the report to FILE (replaced "
                                        "atomically) instead of stdout"),
                               cl::value_desc("FILE"), GESTELL_CHECK_OPTION);
cl::opt<std::string>
    BaselineOpt("baseline",
                cl::desc("Baseline build: checks that compare with a "
                         "baseline get its matching kernel"),
                cl::value_desc("PATH"), GESTELL_CHECK_OPTION);
cl::opt<std::string> NvdisasmOpt(
    "nvdisasm",
    cl::desc("nvdisasm to make SASS for kernels that have only a cubin "
             "(default: the one on PATH, else the triton package's)"),
    cl::value_desc("PATH"), GESTELL_CHECK_OPTION);
cl::list<std::string> TraceCacheOpt(
    "trace-cache",
    cl::desc("A Triton cache that TritonParse traces' cubins may be read "
             "from, besides the scanned folders (docs/traces.md); "
             "repeatable"),
    cl::value_desc("DIR"), GESTELL_CHECK_OPTION);
cl::opt<std::string> DeviceOpt(
    "device",
    cl::desc("Judge occupancy for this GPU (A100, A10G, L4, H100, H200, "
             "B200, RTX 4090, RTX 5090, ...; docs/occupancy.md) instead of "
             "the capability each cubin was built for"),
    cl::value_desc("NAME"), GESTELL_CHECK_OPTION);
cl::list<std::string> LoadOpt("load", cl::desc("Load a check plugin"),
                              cl::value_desc("PLUGIN"), GESTELL_CHECK_OPTION);
cl::opt<bool> AllowConfigPluginsOpt(
    "allow-config-plugins",
    cl::desc("Load the plugins a config file names (off by default: a "
             "config file in a checkout must not run code)"),
    GESTELL_CHECK_OPTION);
cl::opt<unsigned> JobsOpt("j",
                          cl::desc("Kernels checked in parallel (0 = one per "
                                   "core); output is the same for any N"),
                          cl::value_desc("N"), cl::init(0), cl::Prefix,
                          GESTELL_CHECK_OPTION);
cl::opt<std::string> ShardOpt(
    "shard",
    cl::desc("Lint only part I of N (1 <= I <= N): the kernels whose name "
             "and target hash to it, the same on every machine and in any "
             "order; the N SARIF files merge into the whole run's "
             "(docs/ci.md)"),
    cl::value_desc("I/N"), GESTELL_CHECK_OPTION);
cl::list<std::string>
    PathMapOpt("path-map",
               cl::desc("Rewrite paths under FROM to TO in reports (the "
                        "Python source into the checkout); repeatable"),
               cl::value_desc("FROM=TO"), GESTELL_CHECK_OPTION);
cl::opt<std::string> WarningsAsErrorsOpt(
    "warnings-as-errors",
    cl::desc("Comma-separated globs of checks whose warnings are errors"),
    cl::value_desc("GLOBS"), GESTELL_CHECK_OPTION);
cl::opt<bool> KeepGoingOpt(
    "keep-going",
    cl::desc("Run the rules of the rule packs that loaded when some do not "
             "(each bad rule is a tool notification; exit 2)"),
    GESTELL_CHECK_OPTION);
cl::opt<bool> QuietOpt(
    "quiet",
    cl::desc("Print only the findings and errors: no summary line, no "
             "notes or warnings about the run itself"),
    GESTELL_CHECK_OPTION);
cl::alias QuietShort("q", cl::desc("Alias for --quiet"),
                     cl::aliasopt(QuietOpt));
cl::opt<bool> ShowSuppressedOpt(
    "show-suppressed",
    cl::desc("Text: also print suppressed findings and those of the "
             "findings baseline, each marked"),
    GESTELL_CHECK_OPTION);
cl::opt<bool> VerboseOpt(
    "verbose",
    cl::desc("Text: print each headline whole, its layouts in full (by "
             "default long layouts are cut to their names there and given "
             "in full in a note)"),
    GESTELL_CHECK_OPTION);
cl::opt<bool> ReportUnusedIgnoresOpt(
    "report-unused-ignores",
    cl::desc("Warn about each '# gestell: ignore[...]' comment in the "
             "kernels' Python sources that suppresses no finding"),
    GESTELL_CHECK_OPTION);
cl::opt<std::string> FindingsBaselineOpt(
    "findings-baseline",
    cl::desc("Report as new, and count toward the exit status, only the "
             "findings this file (from --write-findings-baseline) does not "
             "hold"),
    cl::value_desc("FILE"), GESTELL_CHECK_OPTION);
cl::opt<std::string> WriteFindingsBaselineOpt(
    "write-findings-baseline",
    cl::desc("Write the current findings to FILE, for --findings-baseline"),
    cl::value_desc("FILE"), GESTELL_CHECK_OPTION);
cl::opt<bool> ListChecksOpt("list-checks",
                            cl::desc("List the enabled checks and exit"),
                            GESTELL_CHECK_OPTION);
cl::opt<bool>
    DumpConfigOpt("dump-config",
                  cl::desc("Print the configuration in effect, with every "
                           "enabled check's options, and exit"),
                  GESTELL_CHECK_OPTION);
cl::opt<bool> ExplainConfigOpt(
    "explain-config",
    cl::desc("Say for each check which source enabled or disabled it"),
    GESTELL_CHECK_OPTION);
cl::opt<bool> VerifyConfigOpt(
    "verify-config",
    cl::desc("Check the configuration (unknown keys, globs matching no "
             "check, unknown options) and exit"),
    GESTELL_CHECK_OPTION);

int fail(const Twine &Message) {
  errs() << "gestell: error: " << Message << "\n";
  return ExitFailure;
}

void printNotification(const Notification &N) {
  errs() << "gestell: " << sarifLevel(N.Severity) << ": " << N.Message
         << "\n";
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

int runCheckVerb() {
  LintOptions Opts;
  Opts.Paths.assign(Paths.begin(), Paths.end());
  Opts.ConfigFile = ConfigOpt;
  Opts.Load.assign(LoadOpt.begin(), LoadOpt.end());
  Opts.AllowConfigPlugins = AllowConfigPluginsOpt;
  Opts.KeepGoing = KeepGoingOpt;
  Opts.ListSources = ReportUnusedIgnoresOpt;
  if (!FindingsBaselineOpt.empty() && !WriteFindingsBaselineOpt.empty())
    return fail("--findings-baseline and --write-findings-baseline together: "
                "write the baseline from a run without one");
  std::optional<FindingsBaseline> Known;
  if (!FindingsBaselineOpt.empty()) {
    Expected<FindingsBaseline> B = readFindingsBaseline(FindingsBaselineOpt);
    if (!B)
      return fail(toString(B.takeError()));
    Known = std::move(*B);
  }
  Opts.TraceCaches.assign(TraceCacheOpt.begin(), TraceCacheOpt.end());
  if (Error E = checkTraceCaches(Opts.TraceCaches))
    return fail(toString(std::move(E)));
  if (Error E = appendGlobs(Opts.CommandLine.Checks, ChecksOpt, "--checks"))
    return fail("--checks: " + toString(std::move(E)));
  if (Error E = appendGlobs(Opts.CommandLine.WarningsAsErrors,
                            WarningsAsErrorsOpt, "--warnings-as-errors"))
    return fail("--warnings-as-errors: " + toString(std::move(E)));
  Shard Part;
  if (ShardOpt.getNumOccurrences()) {
    Expected<Shard> S = parseShard(ShardOpt);
    if (!S)
      return fail(toString(S.takeError()));
    Part = *S;
  }
  ReportOptions Report;
  Report.ToolVersion = GESTELL_VERSION;
  Report.DocsUrl = GESTELL_DOCS_URL;
  Report.ShowSuppressed = ShowSuppressedOpt;
  Report.Verbose = VerboseOpt;
  for (const std::string &M : PathMapOpt)
    if (Error E = Report.Paths.add(M))
      return fail(toString(std::move(E)));

  bool Mode =
      ListChecksOpt || DumpConfigOpt || ExplainConfigOpt || VerifyConfigOpt;
  if (!Mode && Opts.Paths.empty())
    return fail("no PATH given: gestell check [OPTIONS] PATH... (see "
                "gestell --help)");

  Expected<std::unique_ptr<LintSession>> S = LintSession::create(Opts);
  if (!S)
    return fail(toString(S.takeError()));
  LintSession &Session = **S;

  if (VerifyConfigOpt) {
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

  // Nothing to run is a mistake in --checks or the config, not a clean
  // result (clang-tidy: "no checks enabled").
  bool AnyEnabled = false;
  for (size_t I = 0; I < Paths.size(); ++I)
    AnyEnabled |= !Session.configForPath(I).enabled().empty();
  if (!AnyEnabled)
    return fail("no checks enabled: --checks and the configuration leave "
                "none on (--list-checks shows what is enabled)");

  // SASS for cubin-only kernels (a Triton cache) comes from nvdisasm, into
  // the tool's own cache; without one the SASS checks skip those kernels
  // and the run says so once.
  Expected<AnalysisOptions> Analysis = analysisOptions(NvdisasmOpt);
  if (!Analysis)
    return fail(toString(Analysis.takeError()));
  Expected<const DevicePart *> Device = parseDeviceOption(DeviceOpt);
  if (!Device)
    return fail(toString(Device.takeError()));
  Analysis->Device = *Device;

  showProgress(!QuietOpt);
  RunReport R = Session.run(BaselineOpt, JobsOpt, *Analysis, Part);
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

  auto Write = [&](raw_ostream &OS) {
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
  };
  if (!writeOutput(OutputOpt, "gestell: error: ", Write))
    return ExitFailure;
  if (!WriteFindingsBaselineOpt.empty() &&
      !writeFindingsBaseline(WriteFindingsBaselineOpt, R))
    return ExitFailure;

  unsigned Counts[3] = {0, 0, 0}, Suppressed = 0, InBaseline = 0;
  std::map<std::string, unsigned> ByCheck; // reported findings per check
  std::map<std::string, unsigned> States; // --baseline: new, absent, ...
  for (const Result &Res : R.Results) {
    if (!Res.BaselineState.empty())
      ++States[Res.BaselineState];
    if (Res.BaselineState == "absent")
      continue;
    if (Res.Suppressed)
      ++Suppressed;
    else if (Res.InFindingsBaseline)
      ++InBaseline;
    else {
      ++Counts[static_cast<unsigned>(Res.Diag.Severity)];
      ++ByCheck[Res.Diag.CheckId];
    }
  }
  if (QuietOpt)
    return R.exitStatus();
  errs() << "gestell: " << R.KernelsChecked << " kernel"
         << (R.KernelsChecked == 1 ? "" : "s") << " checked";
  if (!Part.all())
    errs() << " in shard " << Part.Index << "/" << Part.Count;
  errs() << ": " << Counts[2]
         << " error(s), " << Counts[1] << " warning(s), " << Counts[0]
         << " remark(s)";
  if (Suppressed)
    errs() << ", " << Suppressed << " suppressed";
  if (Known)
    errs() << ", " << InBaseline << " in the findings baseline";
  if (!BaselineOpt.empty()) {
    errs() << "; against the baseline:";
    for (StringRef S : {"new", "updated", "unchanged", "absent"})
      errs() << " " << States[S.str()] << " " << S
             << (S == "absent" ? "" : ",");
  }
  // Per check, in the summary itself (ruff's --statistics, clang-tidy's
  // tally): which checks the counts come from.
  if (!ByCheck.empty()) {
    errs() << " (";
    for (auto It = ByCheck.begin(); It != ByCheck.end(); ++It)
      errs() << (It == ByCheck.begin() ? "" : ", ") << It->first << " "
             << It->second;
    errs() << ")";
  }
  errs() << "\n";
  if (Fixed && Part.all())
    errs() << "gestell: note: " << Fixed << " finding"
           << (Fixed == 1 ? " of the findings baseline is" : "s of the findings baseline are")
           << " gone: --write-findings-baseline=" << FindingsBaselineOpt
           << " records the findings as they are now\n";
  if (!WriteFindingsBaselineOpt.empty())
    errs() << "gestell: wrote the findings baseline "
           << WriteFindingsBaselineOpt << "\n";
  return R.exitStatus();
}

VerbRegistration Registration(CheckCmd, runCheckVerb, /*IsDefault=*/true);

} // namespace
} // namespace gestell::driver
