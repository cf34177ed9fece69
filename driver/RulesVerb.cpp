//===- RulesVerb.cpp - gestell rules test: rules against their fixtures ---===//
//
// `gestell rules test [--pack=FILE]... DIR...` runs the rules of the rule
// packs on fixtures and compares what they report with what each fixture
// expects, so a team tests its rules in its CI the way the shipped packs
// are tested. A fixture is a folder of kernel artifacts (a Triton cache or
// dump folder, or compiled artifacts) with its expectations beside it: for
// the folder `regressed/`, the file `regressed.rules.expect` (the artifacts
// cannot hold comments):
//
//   # comment
//   baseline baseline                           (optional: for count rules)
//   rules-blackwell-convert-layout-before-tmem-store attn_fwd.ttgir:200
//   rules-blackwell-staging-grows-while-compute-holds attn_fwd.sass
//   ok rules-hopper-conversion-detour-before-wgmma (this rule stays quiet)
//   ok                                          (every rule stays quiet)
//
// Every finding of a rule under test must be expected (rule id, file
// relative to the fixture folder, line; no line = the file as a whole) and
// every expectation found. The baseline's path is relative to the
// expectations file's folder. The rules under test are those of the --pack
// files, or without --pack the shipped packs and those the config names.
// Exit 0: every fixture passed; 1: one failed; 2: a pack or an expectations
// file is bad, or the tool could not read a fixture.
//
//===----------------------------------------------------------------------===//
#include "CommonOptions.h"
#include "LintSession.h"
#include "Verb.h"

#include "gestell/RulePack.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

namespace gestell::driver {

cl::SubCommand &rulesCommand() {
  static cl::SubCommand Cmd("rules",
                            "Rule packs: `gestell rules test DIR...` runs "
                            "each rule on fixtures with expected findings");
  return Cmd;
}

namespace {

// The options only rules reads; -j and --keep-going are in
// CommonOptions.cpp.
cl::list<std::string> Args(cl::Positional, cl::desc("test DIR..."),
                           cl::sub(rulesCommand()), cl::cat(inputCategory()));
cl::list<std::string>
    PackOpt("pack",
            cl::desc("Test the rules of this pack (file or folder); "
                     "repeatable. Default: the shipped packs and the "
                     "config's rule-packs"),
            cl::value_desc("FILE"), cl::sub(rulesCommand()),
            cl::cat(checksCategory()));

constexpr StringRef ExpectSuffix = ".rules.expect";

int fail(const Twine &Message) {
  errs() << "gestell: error: " << Message << "\n";
  return ExitFailure;
}

struct Expectation {
  std::string Rule, File;
  unsigned Line = 0; ///< 0: the file as a whole
  unsigned At = 0;   ///< line of the .rules.expect
};

struct Fixture {
  std::string Dir;        ///< absolute
  std::string Shown;      ///< as the user sees it
  std::string Expect;     ///< the .rules.expect path, absolute
  std::string ExpectName; ///< its file name
  std::string Baseline;
  bool Quiet = false;
  std::vector<Expectation> Expected;
  std::vector<std::pair<std::string, unsigned>> QuietRules;
};

/// Reads one NAME.rules.expect. Problems go to Errors as
/// "file:line:col: ...".
Fixture readExpect(StringRef Path, StringRef Shown,
                   std::vector<std::string> &Errors) {
  Fixture F;
  F.Expect = normalizedPath(Path);
  F.ExpectName = sys::path::filename(Path).str();
  F.Dir = StringRef(F.Expect).drop_back(ExpectSuffix.size()).str();
  F.Shown = Shown.drop_back(ExpectSuffix.size()).str();
  auto Err = [&](unsigned Line, unsigned Col, const Twine &Msg) {
    Errors.push_back(
        (Shown + ":" + Twine(Line) + ":" + Twine(Col) + ": error: " + Msg)
            .str());
  };
  if (!sys::fs::is_directory(F.Dir)) {
    Errors.push_back((Shown + ": error: no fixture folder '" +
                      sys::path::filename(F.Dir) + "' beside it")
                         .str());
    return F;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    Errors.push_back(
        (Shown + ": error: cannot read: " + Buf.getError().message()).str());
    return F;
  }
  SmallVector<StringRef, 32> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (unsigned N = 0; N < Lines.size(); ++N) {
    StringRef Raw = Lines[N].rtrim("\r");
    StringRef L = Raw.take_until([](char C) { return C == '#'; }).trim();
    if (L.empty())
      continue;
    unsigned Col = Raw.size() - Raw.ltrim().size() + 1;
    SmallVector<StringRef, 3> Words;
    L.split(Words, ' ', -1, /*KeepEmpty=*/false);
    StringRef Head = Words[0];
    if (Head == "ok") {
      if (Words.size() == 1)
        F.Quiet = true;
      else if (Words.size() == 2)
        F.QuietRules.push_back({Words[1].str(), N + 1});
      else
        Err(N + 1, Col, "expected 'ok' or 'ok RULE'");
    } else if (Head == "baseline") {
      if (Words.size() != 2) {
        Err(N + 1, Col, "expected 'baseline PATH'");
        continue;
      }
      SmallString<256> B(sys::path::parent_path(F.Expect));
      sys::path::append(B, Words[1]);
      F.Baseline = normalizedPath(B);
      if (!sys::fs::exists(F.Baseline))
        Err(N + 1, Col + 9, "baseline '" + Words[1] + "' does not exist");
    } else if (Words.size() == 2 && Head.starts_with("rules-")) {
      Expectation E;
      E.Rule = Head.str();
      E.At = N + 1;
      StringRef Where = Words[1];
      size_t Colon = Where.rfind(':');
      if (Colon != StringRef::npos &&
          !Where.drop_front(Colon + 1).getAsInteger(10, E.Line)) {
        E.File = Where.take_front(Colon).str();
        if (E.Line == 0)
          Err(N + 1, Col,
              "line numbers start at 1 (leave out ':LINE' for "
              "a finding about the whole file)");
      } else {
        E.File = Where.str();
      }
      F.Expected.push_back(std::move(E));
    } else {
      Err(N + 1, Col,
          "expected 'RULE FILE[:LINE]', 'ok', 'ok RULE' or 'baseline PATH' "
          "(RULE is a check id, rules-<pack>-<id>)");
    }
  }
  if (F.Quiet && (!F.Expected.empty() || !F.QuietRules.empty()))
    Err(1, 1,
        "'ok' alone says no rule reports here: it cannot go with "
        "expected findings or 'ok RULE'");
  if (!F.Quiet && F.Expected.empty() && F.QuietRules.empty())
    Err(1, 1,
        "no expectations: write 'ok' for a fixture where no rule may "
        "report");
  return F;
}

/// Every NAME.rules.expect under Dir, and beside Dir when Dir is a fixture
/// folder (or Dir itself when it is one).
void findExpectFiles(StringRef Dir, std::vector<std::string> &Out) {
  StringRef D = Dir.size() > 1 ? Dir.rtrim("/") : Dir;
  if (D.ends_with(ExpectSuffix) && sys::fs::is_regular_file(D)) {
    Out.push_back(D.str());
    return;
  }
  if (sys::fs::is_regular_file(D + ExpectSuffix))
    Out.push_back((D + ExpectSuffix).str());
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(D, EC), End; It != End && !EC;
       It.increment(EC))
    if (StringRef(It->path()).ends_with(ExpectSuffix))
      Out.push_back(It->path());
  llvm::sort(Out);
}

std::string relativeTo(StringRef Path, StringRef Dir) {
  StringRef P(Path);
  if (P.consume_front(Dir) && (P.empty() || sys::path::is_separator(P[0])))
    return P.ltrim("/").str();
  return Path.str();
}

/// The fixtures under Dirs, their expectations read (problems to Errors);
/// an error when a DIR does not exist or holds no fixture.
Expected<std::vector<Fixture>> findFixtures(ArrayRef<std::string> Dirs,
                                            std::vector<std::string> &Errors) {
  std::vector<Fixture> Fixtures;
  for (const std::string &D : Dirs) {
    if (!sys::fs::exists(D))
      return createStringError(inconvertibleErrorCode(),
                               D + ": no such file or folder");
    std::vector<std::string> Files;
    findExpectFiles(D, Files);
    if (Files.empty())
      return createStringError(inconvertibleErrorCode(),
                               D + ": no fixtures found (a fixture is a "
                                   "folder of kernel artifacts with "
                                   "NAME.rules.expect beside it)");
    for (const std::string &F : Files)
      Fixtures.push_back(readExpect(F, F, Errors));
  }
  return Fixtures;
}

/// The rules under test, loaded once to report pack problems once.
struct RulesUnderTest {
  LintOptions Base; ///< the options of every fixture's session, but Paths
  std::vector<std::string> Ids;
  std::set<std::string> PackProblems; ///< messages, reported already
};

Expected<RulesUnderTest> loadRules(ArrayRef<std::string> Dirs,
                                   ArrayRef<Fixture> Fixtures) {
  RulesUnderTest T;
  T.Base.RulePacks.assign(PackOpt.begin(), PackOpt.end());
  T.Base.ShippedRulePacks = T.Base.ConfigRulePacks = PackOpt.empty();
  T.Base.KeepGoing = opts::KeepGoing;
  cantFail(appendGlobs(T.Base.CommandLine.Checks, "-*,rules-*",
                       "gestell rules test"));
  T.Base.Paths = {Fixtures.empty() ? Dirs[0] : Fixtures[0].Dir};
  Expected<std::unique_ptr<LintSession>> Probe = LintSession::create(T.Base);
  if (!Probe)
    return Probe.takeError();
  for (const RegisteredCheck &C : (*Probe)->registry().checks())
    if (C.Module == "rules")
      T.Ids.push_back(C.Info.Id);
  if (T.Ids.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no rules to test (give --pack=FILE, or name "
                             "packs in .gestell.toml: rule-packs = [...])");
  for (const Notification &N : (*Probe)->packProblems()) {
    errs() << "gestell: error: " << N.Message << "\n";
    T.PackProblems.insert(N.Message);
  }
  return T;
}

/// An error for every expectation that names a rule not under test.
void checkRuleNames(ArrayRef<Fixture> Fixtures, ArrayRef<std::string> RuleIds,
                    std::vector<std::string> &Errors) {
  std::vector<StringRef> RuleRefs(RuleIds.begin(), RuleIds.end());
  for (const Fixture &F : Fixtures) {
    auto Check = [&](StringRef Rule, unsigned Line) {
      if (!is_contained(RuleIds, Rule))
        Errors.push_back((F.Shown + ExpectSuffix + ":" + Twine(Line) +
                          ":1: error: unknown rule '" + Rule + "'" +
                          (StringRef(didYouMean(Rule, RuleRefs)).empty()
                               ? " (not in the packs under test)"
                               : didYouMean(Rule, RuleRefs)))
                             .str());
    };
    for (const Expectation &E : F.Expected)
      Check(E.Rule, E.At);
    for (const auto &[Rule, Line] : F.QuietRules)
      Check(Rule, Line);
  }
}

/// The results of R in fixture F itself (not in a fixture nested in it).
std::vector<const Result *> findingsOf(const RunReport &R, const Fixture &F,
                                       const std::set<std::string> &AllDirs) {
  std::vector<const Result *> Found;
  for (const Result &Res : R.Results) {
    std::string Owner = sys::path::parent_path(Res.Diag.Primary.File).str();
    while (!Owner.empty() && !AllDirs.count(Owner))
      Owner = sys::path::parent_path(Owner).str();
    if (Owner == F.Dir)
      Found.push_back(&Res);
  }
  return Found;
}

/// What differs between F's expectations and its findings: each
/// expectation not reported, each finding not expected.
std::vector<std::string> compareFindings(const Fixture &F,
                                         ArrayRef<const Result *> Found) {
  std::vector<std::string> Problems;
  std::vector<bool> Matched(Found.size(), false);
  for (const Expectation &E : F.Expected) {
    bool Hit = false;
    for (size_t I = 0; I < Found.size() && !Hit; ++I) {
      const Diagnostic &D = Found[I]->Diag;
      Hit = !Matched[I] && D.CheckId == E.Rule &&
            relativeTo(D.Primary.File, F.Dir) == E.File &&
            D.Primary.Line == E.Line;
      Matched[I] = Matched[I] || Hit;
    }
    if (!Hit)
      Problems.push_back(F.ExpectName + ":" + std::to_string(E.At) +
                         ": expected " + E.Rule + " at " + E.File +
                         (E.Line ? ":" + std::to_string(E.Line) : "") +
                         ", not reported");
  }
  for (size_t I = 0; I < Found.size(); ++I) {
    if (Matched[I])
      continue;
    const Diagnostic &D = Found[I]->Diag;
    std::string Where = relativeTo(D.Primary.File, F.Dir);
    if (D.Primary.Line)
      Where += ":" + std::to_string(D.Primary.Line);
    Problems.push_back("unexpected: " + D.CheckId + " " + Where + ": " +
                       D.Message);
  }
  return Problems;
}

/// Runs the rules on fixture F and prints PASS or FAIL with the problems;
/// Fired collects the rules that reported. False when F failed.
Expected<bool> testFixture(const Fixture &F, const RulesUnderTest &Rules,
                           const std::set<std::string> &AllDirs,
                           std::set<std::string> &Fired) {
  LintOptions Opts = Rules.Base;
  Opts.Paths = {F.Dir};
  Opts.KeepGoing = true; // problems were reported by the probe
  Expected<std::unique_ptr<LintSession>> S = LintSession::create(Opts);
  if (!S)
    return S.takeError();
  RunReport R = (*S)->run(F.Baseline, opts::Jobs);
  std::vector<std::string> Problems;
  for (const Notification &N : R.Notifications)
    if (N.Severity == Level::Error && !Rules.PackProblems.count(N.Message))
      Problems.push_back("tool: " + N.Message);
  if (R.KernelsChecked == 0)
    Problems.push_back("no kernels found in the fixture");

  std::vector<const Result *> Found = findingsOf(R, F, AllDirs);
  for (const Result *Res : Found)
    Fired.insert(Res->Diag.CheckId);
  for (std::string &P : compareFindings(F, Found))
    Problems.push_back(std::move(P));
  if (Problems.empty()) {
    outs() << "PASS " << F.Shown << " (" << Found.size() << " finding"
           << (Found.size() == 1 ? "" : "s") << ")\n";
    return true;
  }
  outs() << "FAIL " << F.Shown << "\n";
  for (const std::string &P : Problems)
    outs() << "  " << P << "\n";
  return false;
}

int runRulesTest(ArrayRef<std::string> Dirs) {
  std::vector<std::string> Errors;
  Expected<std::vector<Fixture>> Fixtures = findFixtures(Dirs, Errors);
  if (!Fixtures)
    return fail(toString(Fixtures.takeError()));
  std::set<std::string> FixtureDirs;
  for (const Fixture &F : *Fixtures)
    FixtureDirs.insert(F.Dir);
  Expected<RulesUnderTest> Rules = loadRules(Dirs, *Fixtures);
  if (!Rules)
    return fail(toString(Rules.takeError()));
  checkRuleNames(*Fixtures, Rules->Ids, Errors);
  if (!Errors.empty()) {
    for (const std::string &E : Errors)
      errs() << E << "\n";
    return ExitFailure;
  }

  unsigned Failed = 0;
  std::set<std::string> Fired;
  for (const Fixture &F : *Fixtures) {
    Expected<bool> Passed = testFixture(F, *Rules, FixtureDirs, Fired);
    if (!Passed)
      return fail(toString(Passed.takeError()));
    Failed += !*Passed;
  }
  for (const std::string &Id : Rules->Ids)
    if (!Fired.count(Id))
      errs() << "gestell: warning: rule '" << Id
             << "' reported nothing on any fixture: give it a fixture "
                "where it fires\n";
  outs() << "gestell rules test: " << Fixtures->size() << " fixture"
         << (Fixtures->size() == 1 ? "" : "s") << ", "
         << Fixtures->size() - Failed << " passed, " << Failed << " failed\n";
  if (!Rules->PackProblems.empty())
    return ExitFailure;
  return Failed ? ExitFindings : ExitOk;
}

int runRulesVerb() {
  if (Args.empty() || Args[0] != "test")
    return fail("expected 'gestell rules test DIR...' (see gestell rules "
                "--help)");
  if (Args.size() < 2)
    return fail("gestell rules test: no DIR given");
  std::vector<std::string> Dirs(Args.begin() + 1, Args.end());
  return runRulesTest(Dirs);
}

VerbRegistration Registration(rulesCommand(), runRulesVerb);

} // namespace
} // namespace gestell::driver
