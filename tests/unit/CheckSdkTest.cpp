//===- CheckSdkTest.cpp - The check SDK: options, registry, diagnostics ---===//
//
// The parts of the SDK a plugin author relies on without seeing: typed
// options and their errors, the registry's rules for ids and modules, the
// diagnostic builder, the fingerprint's stability and the sort order.
// The CLI-level behaviour (plugins, config, reporters) is in tests/lit.
//
//===----------------------------------------------------------------------===//
#include "gestell/Check.h"
#include "gestell/CheckRegistry.h"
#include "gestell/Diagnostic.h"
#include "gestell/Options.h"
#include "gestell/utils/Locate.h"

#include "CorpusFiles.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace gestell;
using namespace llvm;

namespace {

ConfiguredOptions options() {
  ConfiguredOptions O;
  O["Threshold"] = {int64_t(300), "cfg.toml:2:13"};
  O["Big"] = {int64_t(1) << 40, "cfg.toml:3:7"};
  O["Ratio"] = {int64_t(2), "cfg.toml:4:9"};
  O["Name"] = {std::string("x"), "cfg.toml:5:8"};
  O["Flag"] = {true, "cfg.toml:6:8"};
  return O;
}

TEST(CheckOptions, TypedGetWithDefaults) {
  ConfiguredOptions O = options();
  std::vector<std::string> Errors;
  OptionsView V("mod-check", &O, &Errors);
  EXPECT_EQ(V.get("Threshold", 64), 300);
  EXPECT_EQ(V.get("Missing", 64), 64);
  EXPECT_EQ(V.get("Ratio", 0.5), 2.0); // an integer is a valid float
  EXPECT_EQ(V.get("Name", "default"), "x");
  EXPECT_EQ(V.get("Flag", false), true);
  EXPECT_EQ(V.get("Missing", std::string("s")), "s");
  EXPECT_TRUE(Errors.empty());
}

TEST(CheckOptions, WrongTypeIsAnErrorNamingTheConfigAndGivesTheDefault) {
  ConfiguredOptions O = options();
  std::vector<std::string> Errors;
  OptionsView V("mod-check", &O, &Errors);
  EXPECT_EQ(V.get("Name", 7), 7);
  EXPECT_EQ(V.get("Threshold", true), true);
  EXPECT_EQ(V.get("Big", uint8_t(3)), 3); // out of range for the type
  ASSERT_EQ(Errors.size(), 3u);
  EXPECT_EQ(Errors[0], "cfg.toml:5:8: option 'Name' of check 'mod-check' "
                       "must be an integer, got \"x\"");
  EXPECT_EQ(Errors[1], "cfg.toml:2:13: option 'Threshold' of check "
                       "'mod-check' must be true or false, got 300");
  EXPECT_EQ(Errors[2], "cfg.toml:3:7: option 'Big' of check 'mod-check' "
                       "must be an integer from 0 to 255, got 1099511627776");
}

TEST(CheckOptions, StoreAndFormatReadBackAsToml) {
  OptionsView V("mod-check", nullptr, nullptr);
  OptionMap M;
  V.store(M, "Threshold", 64u);
  V.store(M, "Ratio", 0.1);
  V.store(M, "Whole", 2.0);
  V.store(M, "Name", "a \"quoted\" \\ name");
  V.store(M, "Flag", false);
  EXPECT_EQ(formatOption(M["Threshold"]), "64");
  EXPECT_EQ(formatOption(M["Ratio"]), "0.1");
  EXPECT_EQ(formatOption(M["Whole"]), "2.0");
  EXPECT_EQ(formatOption(M["Name"]), "\"a \\\"quoted\\\" \\\\ name\"");
  EXPECT_EQ(formatOption(M["Flag"]), "false");
}

class Probe : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "mod-probe";
    I.Summary = "Reports one finding";
    I.Stages = {Stage::PTX};
    return I;
  }
  Probe(StringRef Name, CheckContext &C)
      : Check(Name, C), Threshold(Options.get("Threshold", 64)) {}
  Error check(CheckInput &In) override { return Error::success(); }
  void report() {
    diag(DiagLoc::artifact(Stage::PTX, "/b/k.ptx", 10, 3), "first")
        .note("296 staging instructions in loops (threshold " +
              Twine(Threshold) + ")")
        .related(DiagLoc::artifact(Stage::SASS, "/b/k.sass", 7, 5), "SASS")
        .source(DiagLoc::source("/src/k.py", 42, 7))
        .hint("TritonGPU remove-layout-conversions", "look there")
        .context("ttg.convert_layout");
    diag(DiagLoc::artifact(Stage::PTX, "/b/k.ptx", 12), "second", Level::Remark)
        .source(std::nullopt);
  }
  const int Threshold;
};

TEST(CheckDiagnostics, BuilderFillsEveryPart) {
  CheckInfo Info = Probe::info();
  ConfiguredOptions O = options();
  CheckContext Ctx(Info, &O);
  Probe P("mod-probe", Ctx);
  P.report();
  ASSERT_EQ(Ctx.diagnostics().size(), 2u);
  const Diagnostic &D = Ctx.diagnostics()[0];
  EXPECT_EQ(D.CheckId, "mod-probe");
  EXPECT_EQ(D.Severity, Level::Warning); // the default level
  EXPECT_EQ(D.Primary.Line, 10u);
  EXPECT_EQ(D.Primary.ArtifactStage, Stage::PTX);
  ASSERT_TRUE(D.SourceLoc.has_value());
  EXPECT_TRUE(D.SourceLoc->isSource());
  EXPECT_EQ(D.SourceLoc->Line, 42u);
  ASSERT_EQ(D.Notes.size(), 1u);
  EXPECT_EQ(D.Notes[0].Message,
            "296 staging instructions in loops (threshold 300)");
  ASSERT_EQ(D.Related.size(), 1u);
  EXPECT_EQ(D.Related[0].Message, "SASS");
  ASSERT_TRUE(D.Hint.has_value());
  EXPECT_EQ(D.Hint->Where, "TritonGPU remove-layout-conversions");
  EXPECT_EQ(D.Context, std::vector<std::string>{"ttg.convert_layout"});
  EXPECT_EQ(Ctx.diagnostics()[1].Severity, Level::Remark);
  EXPECT_FALSE(Ctx.diagnostics()[1].SourceLoc.has_value());
}

Diagnostic finding(unsigned Line, StringRef Kernel, StringRef Target) {
  Diagnostic D;
  D.CheckId = "mod-probe";
  D.Message = "296 staging instructions";
  D.Primary = DiagLoc::artifact(Stage::SASS, "/cache/ABC/k.sass", Line, 1);
  D.Kernel = Kernel.str();
  D.Target = Target.str();
  return D;
}

TEST(CheckDiagnostics, FingerprintIgnoresLinesFoldersAndCounts) {
  Diagnostic A = finding(100, "attn_fwd", "cuda:100");
  Diagnostic B = finding(140, "attn_fwd", "cuda:100");
  B.Primary.File = "/cache/XYZ/k.sass";
  B.Message = "40 staging instructions"; // counts are masked
  EXPECT_EQ(fingerprint(A), fingerprint(B));
  EXPECT_EQ(fingerprint(A).size(), 32u);

  EXPECT_NE(fingerprint(A), fingerprint(finding(100, "attn_fwd", "cuda:90")));
  EXPECT_NE(fingerprint(A), fingerprint(finding(100, "matmul", "cuda:100")));
  Diagnostic C = A;
  C.Context = {"ttg.convert_layout", "#linear -> #blocked"};
  Diagnostic D = B;
  D.Context = C.Context;
  EXPECT_NE(fingerprint(A), fingerprint(C));
  EXPECT_EQ(fingerprint(C), fingerprint(D)); // context, not message, decides
}

TEST(CheckDiagnostics, SortIsByLocationThenCheckThenMessage) {
  std::vector<Diagnostic> V = {finding(30, "k", "t"), finding(10, "k", "t"),
                               finding(10, "k", "t")};
  V[2].CheckId = "mod-a";
  std::sort(V.begin(), V.end(), diagnosticLess);
  EXPECT_EQ(V[0].CheckId, "mod-a");
  EXPECT_EQ(V[1].Primary.Line, 10u);
  EXPECT_EQ(V[2].Primary.Line, 30u);
}

CheckFactory probeFactory() {
  return [](StringRef Name, CheckContext &C) {
    return std::unique_ptr<Check>(new Probe(Name, C));
  };
}

TEST(CheckRegistryRules, ModulePrefixIdsAndSortedChecks) {
  CheckRegistry R;
  R.beginModule("mod", nullptr);
  CheckInfo B = Probe::info();
  B.Id = "mod-b";
  R.add(B, probeFactory());
  R.add<Probe>();
  ASSERT_FALSE(static_cast<bool>(R.endModule()));
  ASSERT_EQ(R.checks().size(), 2u);
  EXPECT_EQ(R.checks()[0].Info.Id, "mod-b");
  EXPECT_EQ(R.checks()[1].Info.Id, "mod-probe");
  EXPECT_EQ(R.checks()[1].Module, "mod");
  EXPECT_EQ(R.checks()[1].Info.DocPage, "checks/mod-probe.md");
  EXPECT_NE(R.find("mod-probe"), nullptr);
  EXPECT_EQ(R.find("mod-c"), nullptr);
}

TEST(CheckRegistryRules, ABrokenRuleFailsTheWholeModule) {
  CheckRegistry R;
  R.beginModule("mod", nullptr);
  R.add<Probe>();
  ASSERT_FALSE(static_cast<bool>(R.endModule()));

  R.beginModule("other", nullptr);
  CheckInfo Good = Probe::info();
  Good.Id = "other-fine";
  R.add(Good, probeFactory());
  CheckInfo Wrong = Probe::info(); // "mod-probe": wrong prefix and taken
  R.add(Wrong, probeFactory());
  CheckInfo Bad = Probe::info();
  Bad.Id = "other-Bad_Id";
  R.add(Bad, probeFactory());
  CheckInfo NoSummary = Probe::info();
  NoSummary.Id = "other-quiet";
  NoSummary.Summary = "";
  R.add(NoSummary, probeFactory());
  Error E = R.endModule();
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ(toString(std::move(E)),
            "check 'mod-probe': id must start with the module name 'other-'; "
            "check 'other-Bad_Id': invalid id: use lowercase letters, digits "
            "and '-'; check 'other-quiet': empty summary");
  // Nothing of the failed module stays; the earlier module is untouched.
  ASSERT_EQ(R.checks().size(), 1u);
  EXPECT_EQ(R.checks()[0].Info.Id, "mod-probe");

  R.beginModule("mod", nullptr);
  R.add<Probe>();
  E = R.endModule();
  EXPECT_EQ(toString(std::move(E)),
            "check 'mod-probe': already registered by module 'mod'");

  R.beginModule("third", nullptr);
  R.fail("the module's own reason");
  EXPECT_EQ(toString(R.endModule()), "the module's own reason");
}

TEST(CheckRegistryRules, ValidIds) {
  EXPECT_TRUE(isValidCheckId("nvidia-register-spill"));
  EXPECT_TRUE(
      isValidCheckId("rules-blackwell-convert-layout-before-tmem-store"));
  EXPECT_FALSE(isValidCheckId(""));
  EXPECT_FALSE(isValidCheckId("-x"));
  EXPECT_FALSE(isValidCheckId("x-"));
  EXPECT_FALSE(isValidCheckId("a--b"));
  EXPECT_FALSE(isValidCheckId("Nvidia-x"));
  EXPECT_FALSE(isValidCheckId("a_b"));
}

TEST(CheckLocations, PythonSourceSkipsTritonFrames) {
  PtxModule M;
  M.Path = "/b/k.ptx";
  M.Files = {"", "/src/kernels/k.py",
             "/venv/lib/python3.12/site-packages/triton/language/standard.py"};
  PtxInstruction User;
  User.Line = 9;
  User.Column = 2;
  User.Loc = {1, 33, 21};
  PtxInstruction Lib = User;
  Lib.Loc = {2, 43, 17};
  DiagLoc L = locate(M, User);
  EXPECT_EQ(L.File, "/b/k.ptx");
  EXPECT_EQ(L.Line, 9u);
  EXPECT_EQ(L.ArtifactStage, Stage::PTX);
  std::optional<DiagLoc> S = pythonSource(M, User);
  ASSERT_TRUE(S.has_value());
  EXPECT_EQ(S->File, "/src/kernels/k.py");
  EXPECT_EQ(S->Line, 33u);
  EXPECT_EQ(S->Column, 21u);
  EXPECT_FALSE(pythonSource(M, Lib).has_value());

  // SASS: the innermost frame is Triton's; the user frame it was inlined
  // into is the one to show.
  SassModule SM;
  SM.Path = "/b/k.cuobjdump.sass";
  SM.Frames = {{"/venv/site-packages/triton/language/standard.py", 43, 1, 5},
               {"/src/kernels/k.py", 32, NoIndex, 4}};
  SassInstruction SI;
  SI.Line = 12;
  SI.Frame = 0;
  EXPECT_EQ(locate(SM, SI).ArtifactStage, Stage::SASSAlt);
  std::optional<DiagLoc> SS = pythonSource(SM, SI);
  ASSERT_TRUE(SS.has_value());
  EXPECT_EQ(SS->File, "/src/kernels/k.py");
  EXPECT_EQ(SS->Line, 32u);
}

// A kernel compiled from a hand-written .ttgir (the sm100-tmem-negative
// fixture) has debug locations in that .ttgir: not a Python source.
TEST(CheckLocations, PythonSourceIsPythonOnly) {
  PtxModule M;
  M.Path = "/b/k.ptx";
  M.Files = {"/tmp/fx/_work/sm100/sm100-tmem-negative.input.ttgir",
             "/src/kernels/k.py"};
  PtxInstruction I;
  I.Line = 9;
  I.Loc = {0, 47, 5};
  EXPECT_FALSE(pythonSource(M, I).has_value());
  I.Loc = {1, 47, 5};
  EXPECT_TRUE(pythonSource(M, I).has_value());
}

// pythonLine is pythonSource's file and line, without the DiagLoc: on every
// instruction and op of real listings with line info (inlined frames
// included) and of their TTGIR.
TEST(CheckLocations, PythonLineIsPythonSourcesFileAndLine) {
  size_t Compared = 0, WithLine = 0;
  auto Same = [&](const std::optional<PythonLine> &L,
                  const std::optional<DiagLoc> &D) {
    ++Compared;
    if (!D)
      return !L;
    WithLine += bool(L);
    return L && L->File == D->File && L->Line == D->Line;
  };
  for (const char *Dir :
       {"sm100/attn_fwd_d128/attn_fwd", "sm100/matmul_f16/matmul"}) {
    std::string Base =
        gestell::test::corpusRoot() + "/triton-3.6.0/bundles/" + Dir;
    Expected<std::unique_ptr<SassModule>> S = parseSass(Base + ".sass");
    ASSERT_TRUE(bool(S)) << toString(S.takeError());
    for (const SassFunction &F : (*S)->Functions)
      for (const SassInstruction &I : F.Instructions)
        ASSERT_TRUE(Same(pythonLine(**S, I), pythonSource(**S, I)))
            << Base << " line " << I.Line;
    Expected<std::unique_ptr<TtgirModule>> T = parseTtgir(Base + ".ttgir");
    ASSERT_TRUE(bool(T)) << toString(T.takeError());
    for (const Operation *Op : (*T)->ops())
      ASSERT_TRUE(Same(pythonLine(**T, *Op), pythonSource(**T, *Op)))
          << Base << " line " << Op->Line;
  }
  EXPECT_GT(WithLine, 1000u); // most have a Python line
  EXPECT_GT(Compared, WithLine);
}

} // namespace
