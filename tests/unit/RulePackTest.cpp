//===- RulePackTest.cpp - Rule packs: loading, errors, matching -----------===//
//
// The shipped packs load cleanly; every kind of mistake in a pack is a
// problem at the file, line and column where it was written (with "did you
// mean" where a name is close); and the matcher, run on the real fixtures
// of tests/fixtures, finds what each rule is about and nothing else.
//
//===----------------------------------------------------------------------===//
#include "gestell/RulePack.h"
#include "gestell/Layout.h"
#include "gestell/RuleCheck.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace llvm;

namespace {

std::string sourceRoot() {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::remove_filename(P); // tests/corpus -> tests
  sys::path::remove_filename(P); // tests -> source root
  return std::string(P);
}

std::string fixture(StringRef Rel) {
  SmallString<256> P(sourceRoot());
  sys::path::append(P, "tests", "fixtures", Rel);
  return std::string(P);
}

std::string shippedPack(StringRef Name) {
  SmallString<256> P(sourceRoot());
  sys::path::append(P, "checks", Name);
  return std::string(P);
}

PackLoad parse(StringRef Text) {
  return parseRulePack(Text, "team.toml", FamilyTable::builtin());
}

std::string problems(const PackLoad &L) {
  std::string S;
  raw_string_ostream OS(S);
  for (const PackProblem &P : L.Problems)
    printPackProblem(OS, P);
  return S;
}

/// Parses Text, expects exactly one problem and returns it.
PackProblem oneProblem(StringRef Text) {
  PackLoad L = parse(Text);
  EXPECT_EQ(L.Problems.size(), 1u) << problems(L);
  if (L.Problems.empty())
    return {};
  return L.Problems.front();
}

const std::string Header = "pack = \"team\"\n";

/// A valid pattern rule (lines 2-6) followed by Extra (from line 7).
std::string patternRule(StringRef Extra) {
  return Header +
         "[[rule]]\n"
         "id = \"r\"\n"
         "summary = \"s\"\n"
         "message = \"m\"\n"
         "match = [\"ttg.convert_layout\", \"ttng.tmem_store\"]\n" +
         Extra.str();
}

TEST(RulePack, ShippedPacksLoadCleanly) {
  for (StringRef Name : {"blackwell.toml", "hopper.toml"}) {
    PackLoad L = loadRulePack(shippedPack(Name), FamilyTable::builtin());
    ASSERT_TRUE(L.Pack) << problems(L);
    EXPECT_TRUE(L.Problems.empty()) << problems(L);
    EXPECT_FALSE(L.Pack->Rules.empty());
    for (const Rule &R : L.Pack->Rules) {
      EXPECT_EQ(R.CheckId, "rules-" + L.Pack->Name + "-" + R.Id);
      EXPECT_FALSE(R.Summary.empty());
      EXPECT_TRUE(R.ReadStage.has_value()) << R.Id;
    }
  }
}

TEST(RulePack, BlackwellPackIsTheIssuesPack) {
  PackLoad L =
      loadRulePack(shippedPack("blackwell.toml"), FamilyTable::builtin());
  ASSERT_TRUE(L.Pack);
  ASSERT_EQ(L.Pack->Rules.size(), 2u);
  const Rule &Cvt = L.Pack->Rules[0];
  EXPECT_EQ(Cvt.CheckId, "rules-blackwell-convert-layout-before-tmem-store");
  ASSERT_EQ(Cvt.Match.size(), 2u);
  EXPECT_EQ(Cvt.Match[0].Text, "ttg.convert_layout");
  EXPECT_EQ(Cvt.Match[1].Text, "ttng.tmem_store");
  EXPECT_EQ(Cvt.Through.size(), 0u); // the fold: the store reads it directly
  ASSERT_EQ(Cvt.Where.size(), 3u);
  EXPECT_EQ(Cvt.Where[0].K, Predicate::Kind::TmemCompatible);
  EXPECT_EQ(Cvt.Where[0].Subject.K, MatchRef::Kind::Operand);
  EXPECT_EQ(Cvt.Where[1].K, Predicate::Kind::Cost);
  EXPECT_EQ(Cvt.Where[2].K, Predicate::Kind::InLoop);
  EXPECT_EQ(Cvt.Tags, (std::vector<std::string>{"blackwell", "layout"}));
  EXPECT_EQ(Cvt.ReadStage, Stage::TTGIR);

  const Rule &Staging = L.Pack->Rules[1];
  EXPECT_EQ(Staging.CheckId,
            "rules-blackwell-staging-grows-while-compute-holds");
  ASSERT_TRUE(Staging.When);
  EXPECT_TRUE(Staging.When->usesBase());
  EXPECT_EQ(Staging.When->str(), "head.staging.loop > 2 * base.staging.loop "
                                 "and head.tensor.loop == base.tensor.loop");
  EXPECT_EQ(Staging.ReadStage, Stage::SASS);
}

struct BadPack {
  const char *Name;
  std::string Text;
  unsigned Line, Column;
  const char *Message; ///< a substring of the problem's message
};

void PrintTo(const BadPack &B, std::ostream *OS) { *OS << B.Name; }

class BadPackTest : public testing::TestWithParam<BadPack> {};

TEST_P(BadPackTest, IsLocated) {
  const BadPack &B = GetParam();
  PackProblem P = oneProblem(B.Text);
  EXPECT_EQ(P.File, "team.toml");
  EXPECT_EQ(P.Line, B.Line) << P.Message;
  EXPECT_EQ(P.Column, B.Column) << P.Message;
  EXPECT_NE(P.Message.find(B.Message), std::string::npos) << P.Message;
  EXPECT_FALSE(P.SourceLine.empty());
}

const BadPack BadPacks[] = {
    BadPack{"UnknownRuleKey", patternRule("mach = 1\n"), 7, 1,
            "unknown key 'mach' in a rule; did you mean 'match'?"},
    BadPack{"UnknownTopKey", Header + "pakc = 1\n", 2, 1,
            "unknown key 'pakc' in a rule pack; did you mean 'pack'?"},
    BadPack{"UnknownOp",
            (Header + "[[rule]]\nid = \"r\"\nsummary = \"s\"\n"
                      "message = \"m\"\n"
                      "match = [\"ttg.convert_layuot\"]\n"),
            6, 10,
            "unknown op 'ttg.convert_layuot'; did you mean "
            "'ttg.convert_layout'?"},
    BadPack{"UnknownDialect",
            (Header + "[[rule]]\nid = \"r\"\nsummary = \"s\"\n"
                      "message = \"m\"\nmatch = [\"zzz.foo\"]\n"),
            6, 10, "unknown dialect 'zzz' in op 'zzz.foo'"},
    BadPack{"UnknownPredicate",
            patternRule("where = [{ is = \"tmem-compatable\" }]\n"), 7, 17,
            "unknown predicate 'tmem-compatable'; did you mean "
            "'tmem-compatible'?"},
    BadPack{"UnknownPredicateKey",
            patternRule("where = [{ is = \"in-loop\", opp = "
                        "\"match[0]\" }]\n"),
            7, 28,
            "unknown key 'opp' in a 'in-loop' predicate; did you "
            "mean 'op'?"},
    BadPack{"RefPastEnd",
            patternRule("where = [{ is = \"in-loop\", op = "
                        "\"match[2]\" }]\n"),
            7, 33, "'match[2]' is past the end of 'match'"},
    BadPack{"RefBadPart",
            patternRule("where = [{ is = \"equivalent\", layout = "
                        "\"match[0].sr\", with = \"match[0].dst\" }]\n"),
            7, 49, "unexpected '.sr' after 'match[0]'"},
    BadPack{"ValueWhereOpExpected",
            patternRule("where = [{ is = \"in-loop\", op = "
                        "\"match[0].src\" }]\n"),
            7, 33, "'op' names an op"},
    BadPack{"MissingPredicateKey",
            patternRule("where = [{ is = \"tmem-compatible\", layout = "
                        "\"match[0].src\" }]\n"),
            7, 10, "needs 'store'"},
    BadPack{"UnknownLevel", patternRule("level = \"warn\"\n"), 7, 9,
            "unknown level 'warn' (remark, warning or error); did you "
            "mean 'warning'?"},
    BadPack{"UnknownStage", patternRule("stage = \"ttgri\"\n"), 7, 9,
            "did you mean 'ttgir'?"},
    BadPack{"PatternRuleReadsPtx", patternRule("stage = \"ptx\"\n"), 7, 9,
            "a pattern rule ('match') reads TTGIR"},
    BadPack{"WrongType", patternRule("tags = 3\n"), 7, 8,
            "expected a string or an array of strings for 'tags', found "
            "an integer"},
    BadPack{"UnknownFamilyInWhen",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "message = \"m\"\n"
                      "when = \"sass.op(\\\"LDSM\\\") > base.stagin\"\n"),
            6, 34, "unknown family 'stagin'; did you mean 'staging'?"},
    BadPack{"WhenIsNotACondition",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "message = \"m\"\nwhen = \"head.staging\"\n"),
            6, 9, "expected a condition"},
    BadPack{"BothMatchAndWhen", patternRule("when = \"head.staging > 0\"\n"), 7,
            8, "not both"},
    BadPack{"NeitherMatchNorWhen",
            Header + "[[rule]]\nid = \"r\"\nsummary = \"s\"\n"
                     "message = \"m\"\n",
            2, 1, "a rule needs 'match'"},
    BadPack{"MissingSummary",
            Header + "[[rule]]\nid = \"r\"\nmessage = \"m\"\n"
                     "match = [\"tt.dot\"]\n",
            2, 1, "a rule needs 'summary'"},
    BadPack{
        "BadId",
        patternRule("").replace(patternRule("").find("\"r\""), 3, "\"R_1\""), 3,
        6, "invalid id 'R_1'"},
    BadPack{"BadPlaceholderField",
            patternRule("hint = \"see {match[0].srcc}\"\n"), 7, 22,
            "unknown field '.srcc'"},
    BadPack{"UnmatchedBrace", patternRule("hint = \"a } b\"\n"), 7, 11,
            "unmatched '}'"},
    BadPack{"MetricInPatternRule", patternRule("hint = \"{head.staging}\"\n"),
            7, 10, "metrics are for count rules"},
    BadPack{"ConditionPlaceholder",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "when = \"head.staging > 0\"\n"
                      "message = \"{head.staging > 1}\"\n"),
            6, 13, "is a condition"},
    BadPack{"CountRuleWithMatchPredicate",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "when = \"head.staging > 0\"\nmessage = \"m\"\n"
                      "where = [{ is = \"in-loop\", op = \"match[0]\" }]\n"),
            7, 17, "a count rule ('when') can only use the 'target'"},
    BadPack{"TomlSyntax", Header + "[[rule]\n", 2, 8, ""},
    BadPack{"NoPack", "[[rule]]\nid = \"r\"\n", 1, 1,
            "a rule pack needs 'pack"},
    BadPack{"RuleTable", Header + "[rule]\nid = \"r\"\n", 2, 2,
            "expected [[rule]] tables"},
    BadPack{"MultiLineWhen",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "message = \"m\"\nwhen = \"\"\"\n"
                      "head.staging > 0 and\n  head.tensr == 1\"\"\"\n"),
            8, 8, "unknown family 'tensr'; did you mean 'tensor'?"},
    BadPack{"LiteralStringWhen",
            (Header + "[[rule]]\nid = \"c\"\nsummary = \"s\"\n"
                      "message = \"m\"\n"
                      "when = 'sass.op(\"X\") > 1 and sass.opp(\"Y\") > 1'\n"),
            6, 35, ""}};

INSTANTIATE_TEST_SUITE_P(Problems, BadPackTest, testing::ValuesIn(BadPacks),
                         [](const testing::TestParamInfo<BadPack> &I) {
                           return I.param.Name;
                         });

TEST(RulePack, DuplicateIdIsAProblemAtTheSecond) {
  PackLoad L = parse(patternRule("") + "[[rule]]\nid = \"r\"\n"
                                       "summary = \"s\"\nmessage = \"m\"\n"
                                       "match = [\"tt.dot\"]\n");
  ASSERT_EQ(L.Problems.size(), 1u) << problems(L);
  EXPECT_EQ(L.Problems[0].Line, 8u);
  EXPECT_EQ(L.Problems[0].Column, 6u);
  EXPECT_NE(L.Problems[0].Message.find("duplicate rule id 'r' (first defined "
                                       "at line 3)"),
            std::string::npos);
}

TEST(RulePack, ABadRuleDropsOnlyItself) {
  PackLoad L = parse(patternRule("") + "[[rule]]\nid = \"bad\"\n"
                                       "summary = \"s\"\nmessage = \"m\"\n"
                                       "match = [\"tt.dott\"]\n");
  ASSERT_TRUE(L.Pack);
  ASSERT_EQ(L.Pack->Rules.size(), 1u);
  EXPECT_EQ(L.Pack->Rules[0].Id, "r");
  ASSERT_EQ(L.Problems.size(), 1u);
  EXPECT_EQ(L.Problems[0].RuleId, "bad");
}

TEST(RulePack, AllProblemsOfARuleAreReported) {
  PackLoad L = parse(Header + "[[rule]]\nid = \"r\"\nlevel = \"warn\"\n"
                              "stage = \"sas\"\nmatch = [\"tt.dott\"]\n");
  // level, stage, op, summary, message.
  EXPECT_EQ(L.Problems.size(), 5u) << problems(L);
  EXPECT_TRUE(L.Pack && L.Pack->Rules.empty());
}

TEST(RulePack, ProblemPrintsLikeACompiler) {
  PackProblem P = oneProblem(patternRule("mach = 1\n"));
  std::string S;
  raw_string_ostream OS(S);
  printPackProblem(OS, P);
  EXPECT_EQ(S, "team.toml:7:1: error: unknown key 'mach' in a rule; did you "
               "mean 'match'?\nmach = 1\n^\n");
}

TEST(RulePack, DuplicateCheckIdsAcrossPacks) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("rulepack", Dir));
  for (StringRef Name : {"a.toml", "b.toml"}) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC);
    OS << patternRule("");
  }
  PackSet S = loadRulePacks({std::string(Dir)}, FamilyTable::builtin());
  ASSERT_EQ(S.Packs.size(), 2u);
  EXPECT_EQ(S.Packs[0]->Rules.size(), 1u);
  EXPECT_EQ(S.Packs[1]->Rules.size(), 0u);
  ASSERT_EQ(S.Problems.size(), 1u);
  EXPECT_NE(S.Problems[0].Message.find("check 'rules-team-r' is defined twice"),
            std::string::npos);
  EXPECT_TRUE(StringRef(S.Problems[0].File).ends_with("b.toml"));
  // The same folder twice is read once.
  PackSet Twice = loadRulePacks({std::string(Dir), std::string(Dir)},
                                FamilyTable::builtin());
  EXPECT_EQ(Twice.Packs.size(), 2u);
  sys::fs::remove_directories(Dir);
}

TEST(RulePack, KnownOpsCoverTheCorpusAndFixtures) {
  ArrayRef<StringRef> Known = knownTtgirOps();
  EXPECT_TRUE(std::is_sorted(Known.begin(), Known.end()));
  StringSet<> Seen;
  for (std::string Root : {std::string(GESTELL_TEST_CORPUS), fixture("")}) {
    std::error_code EC;
    for (sys::fs::recursive_directory_iterator It(Root, EC), End;
         It != End && !EC; It.increment(EC)) {
      if (!StringRef(It->path()).ends_with(".ttgir"))
        continue;
      Expected<std::unique_ptr<TtgirModule>> M = parseTtgir(It->path());
      ASSERT_TRUE(bool(M)) << toString(M.takeError());
      for (const Operation *Op : (*M)->ops())
        Seen.insert(Op->Name);
    }
  }
  EXPECT_GT(Seen.size(), 40u);
  for (const auto &E : Seen) {
    StringRef Op = E.getKey();
    StringRef Dialect = Op.take_until([](char C) { return C == '.'; });
    EXPECT_TRUE(std::binary_search(Known.begin(), Known.end(), Op) ||
                is_contained(openTtgirDialects(), Dialect))
        << Op.str() << " is in a real .ttgir but not in knownTtgirOps()";
  }
}

//===----------------------------------------------------------------------===//
// Matching on the real fixtures
//===----------------------------------------------------------------------===//

struct Found {
  std::vector<unsigned> Lines;
  std::vector<std::string> Messages;
};

Found runRule(const Rule &R, StringRef TtgirPath) {
  Found F;
  Expected<std::unique_ptr<TtgirModule>> M = parseTtgir(TtgirPath);
  if (!M) {
    ADD_FAILURE() << toString(M.takeError());
    return F;
  }
  RuleMatcher Matcher(**M);
  for (const RuleMatch &Mt : Matcher.match(R)) {
    F.Lines.push_back(Mt.Ops[R.At]->Line);
    F.Messages.push_back(Matcher.render(R.Message, Mt, "k"));
  }
  return F;
}

const Rule &shippedRule(StringRef Pack, StringRef Id) {
  static std::map<std::string, std::shared_ptr<RulePack>> Packs;
  std::shared_ptr<RulePack> &P = Packs[Pack.str()];
  if (!P)
    P = loadRulePack(shippedPack((Pack + ".toml").str()),
                     FamilyTable::builtin())
            .Pack;
  for (const Rule &R : P->Rules)
    if (R.Id == Id)
      return R;
  static Rule None;
  ADD_FAILURE() << "no rule " << Id.str();
  return None;
}

TEST(RuleMatch, BlackwellRuleOnTheReferenceCase) {
  const Rule &R = shippedRule("blackwell", "convert-layout-before-tmem-store");
  Found F = runRule(R, fixture("sm100-attn-tmem-w8/regressed/attn_fwd.ttgir"));
  ASSERT_EQ(F.Lines, std::vector<unsigned>{200});
  // Canonical layouts, never the file's alias names.
  EXPECT_EQ(F.Messages[0],
            "redundant layout conversion #ttg.linear<{register = [[0, 1], "
            "[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, "
            "0], [4, 0], [8, 0], [0, 64]], warp = [[32, 0], [64, 0], [16, "
            "0]], block = []}> -> #ttg.blocked<{sizePerThread = [1, 64], "
            "threadsPerWarp = [32, 1], warpsPerCTA = [4, 2], order = [0, "
            "1]}> before tmem_store in a loop: its cost is shared, and the "
            "store accepts the source layout");
}

TEST(RuleMatch, BlackwellRuleQuietOnTheControls) {
  const Rule &R = shippedRule("blackwell", "convert-layout-before-tmem-store");
  for (StringRef Quiet :
       {"sm100-attn-tmem-w8/baseline/attn_fwd.ttgir",
        "sm100-attn-tmem/baseline/attn_fwd.ttgir",
        "sm100-tmem-negative/tmem_negative.ttgir",
        "sm100-gluon-positive/tcgen05/gluon_tcgen05_matmul.ttgir",
        "sm100-gluon-positive/warp-specialized/gluon_ws_matmul.ttgir",
        // The store's input comes from a second conversion out of a
        // global-load layout: not TMEM-compatible, so not redundant.
        "sm100-attn-tmem-w8/roundtrip/attn_fwd.ttgir"})
    EXPECT_TRUE(runRule(R, fixture(Quiet)).Lines.empty()) << Quiet.str();
}

TEST(RuleMatch, NegativeControlHasTheChainButNotThePredicate) {
  // The chain is there (convert_layout -> tmem_store in a loop); only the
  // tmem-compatible predicate keeps the rule quiet.
  Rule R = shippedRule("blackwell", "convert-layout-before-tmem-store");
  StringRef Path = "sm100-tmem-negative/tmem_negative.ttgir";
  R.Where[0].Negated = true;
  EXPECT_EQ(runRule(R, fixture(Path)).Lines, std::vector<unsigned>{30});
  R.Where.clear();
  EXPECT_EQ(runRule(R, fixture(Path)).Lines, std::vector<unsigned>{30});
}

/// A pattern rule from text (one [[rule]] with the given body).
std::shared_ptr<RulePack> ruleFrom(StringRef Body) {
  PackLoad L =
      parse(Header + "[[rule]]\nid = \"t\"\nsummary = \"s\"\n" + Body.str());
  EXPECT_TRUE(L.Problems.empty()) << problems(L);
  EXPECT_TRUE(L.Pack && L.Pack->Rules.size() == 1);
  return L.Pack;
}

TEST(RuleMatch, EveryPredicateOnRealIr) {
  std::string Equivalent = fixture("sm100-attn-tmem/equivalent/attn_fwd.ttgir");
  std::string Regressed = fixture("sm100-attn-tmem/regressed/attn_fwd.ttgir");
  std::string Detour =
      fixture("sm90-attn-wgmma-detour/regressed/attn_fwd.ttgir");
  auto Lines = [](StringRef Body, StringRef Path) {
    std::shared_ptr<RulePack> P = ruleFrom(Body);
    return P && !P->Rules.empty() ? runRule(P->Rules[0], Path).Lines
                                  : std::vector<unsigned>{999};
  };
  const std::string Cvt =
      "message = \"{match[0].src.shape} {match[0].src.dtype}\"\n"
      "match = [\"ttg.convert_layout\"]\n";
  // The equivalent fixture's conversion is free; the regressed one's is not.
  // (128x64 conversions only: at 4 warps the 128x1 conversions of the
  // softmax row statistics are between equivalent layouts too.)
  std::string Eq = Cvt + "where = [{ is = \"equivalent\", layout = "
                         "\"match[0].src\", with = \"match[0].dst\" }, "
                         "{ is = \"shape\", value = \"match[0].src\", "
                         "equals = [128, 64] }]\n";
  EXPECT_EQ(Lines(Eq, Equivalent), std::vector<unsigned>{207});
  EXPECT_TRUE(Lines(Eq, Regressed).empty());
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"cost\", op = \"match[0]\", equals "
                        "= \"shuffle\" }]\n",
                  Regressed),
            std::vector<unsigned>{207});
  // Conversions of the sm90 detour, by cost and loop depth.
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"cost\", op = \"match[0]\", equals "
                        "= \"shared\" }, { is = \"loop-depth\", op = "
                        "\"match[0]\", equals = 1 }]\n",
                  Detour),
            (std::vector<unsigned>{161, 162}));
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"in-loop\", op = \"match[0]\", not "
                        "= true }]\n",
                  Detour),
            (std::vector<unsigned>{197, 206}));
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"shape\", value = \"match[0].src\", "
                        "equals = [128, \"*\"] }, { is = \"dtype\", value = "
                        "\"match[0].src\", equals = \"bf16\" }]\n",
                  Detour),
            (std::vector<unsigned>{161, 162, 206}));
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"shape\", value = \"match[0].dst\", "
                        "equals = [128, 1] }]\n",
                  Detour),
            (std::vector<unsigned>{156, 197}));
  EXPECT_EQ(Lines(Cvt + "where = [{ is = \"target\", equals = \"cuda:9*\" }]\n",
                  Detour)
                .size(),
            5u);
  EXPECT_TRUE(Lines(Cvt + "where = [{ is = \"target\", equals = "
                          "[\"cuda:100\", \"cuda:120\"] }]\n",
                    Detour)
                  .empty());
  // attr: the wgmma that takes the detoured operand is async.
  std::string Dot = "message = \"m\"\nmatch = [\"ttng.warp_group_dot\"]\n";
  EXPECT_EQ(Lines(Dot + "where = [{ is = \"attr\", op = \"match[0]\", name = "
                        "\"isAsync\", equals = true }]\n",
                  Detour)
                .size(),
            2u);
  EXPECT_TRUE(Lines(Dot + "where = [{ is = \"attr\", op = \"match[0]\", name "
                          "= \"isAsync\", equals = false }]\n",
                    Detour)
                  .empty());
  EXPECT_EQ(Lines(Dot + "where = [{ is = \"attr\", op = \"match[0]\", name = "
                        "\"inputPrecision\", equals = 0 }]\n",
                  Detour)
                .size(),
            2u);
}

TEST(RuleMatch, ChainsFollowThroughOpsOnly) {
  std::string Detour =
      fixture("sm90-attn-wgmma-detour/regressed/attn_fwd.ttgir");
  std::string Base = fixture("sm90-attn-wgmma-detour/baseline/attn_fwd.ttgir");
  const Rule &R = shippedRule("hopper", "conversion-detour-before-wgmma");
  EXPECT_EQ(runRule(R, Detour).Lines, std::vector<unsigned>{161});
  EXPECT_TRUE(runRule(R, Base).Lines.empty());
  // Without arith.truncf among the through ops, the Blackwell chain (truncf
  // sits before the conversion, not between the links) still matches...
  Rule Cvt = shippedRule("blackwell", "convert-layout-before-tmem-store");
  Cvt.Through.clear();
  std::string Ref = fixture("sm100-attn-tmem-w8/regressed/attn_fwd.ttgir");
  EXPECT_EQ(runRule(Cvt, Ref).Lines, std::vector<unsigned>{200});
  // ...and a chain that needs a through op matches only with it: the
  // round trip's first conversion reaches the store through the second.
  Cvt.Where.clear();
  std::string Round = fixture("sm100-attn-tmem-w8/roundtrip/attn_fwd.ttgir");
  EXPECT_EQ(runRule(Cvt, Round).Lines, std::vector<unsigned>{201});
  Cvt.Through.push_back({"ttg.convert_layout", false, nullptr});
  EXPECT_EQ(runRule(Cvt, Round).Lines, (std::vector<unsigned>{200, 201}));
}

TEST(RuleMatch, GlobsInMatchAndThrough) {
  std::string Ref = fixture("sm100-attn-tmem-w8/regressed/attn_fwd.ttgir");
  std::shared_ptr<RulePack> P = ruleFrom(
      "message = \"m\"\n"
      "match = [\"ttg.convert_*\", \"ttng.tmem_st*\"]\n"
      "through = [\"arith.*\"]\n"
      "where = [{ is = \"tmem-compatible\", layout = \"match[0].src\", "
      "store = \"match[1]\" }]\n");
  ASSERT_TRUE(P && P->Rules.size() == 1);
  EXPECT_TRUE(P->Rules[0].Match[0].IsGlob && P->Rules[0].Match[0].Glob);
  EXPECT_EQ(runRule(P->Rules[0], Ref).Lines, std::vector<unsigned>{200});
  // A glob that names no known op is an error.
  PackProblem Bad = oneProblem(patternRule("through = [\"arith.zz*\"]\n"));
  EXPECT_EQ(Bad.Message, "op pattern 'arith.zz*' matches no known op");
}

} // namespace
