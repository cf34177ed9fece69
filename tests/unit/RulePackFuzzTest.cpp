//===- RulePackFuzzTest.cpp - Malformed packs: errors, never crashes ------===//
//
// The real packs (checks/*.toml and the lit tests' team pack) mutated at
// random, byte by byte and token by token, with their `when` expressions and
// placeholders mutated in the grammar's own tokens: every result must load
// or fail with located problems (file, line and column inside the text),
// and whatever loads must run on a real module and render its messages.
// Seeds are fixed, so a failure reproduces; the seed and the text are
// printed with it.
//
//===----------------------------------------------------------------------===//
#include "gestell/RuleCheck.h"
#include "gestell/RulePack.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <random>

using namespace gestell;
using namespace llvm;

namespace {

std::string sourcePath(StringRef Rel) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::remove_filename(P);
  sys::path::remove_filename(P);
  sys::path::append(P, Rel);
  return std::string(P);
}

std::string readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(B)) << Path.str();
  return B ? (*B)->getBuffer().str() : "";
}

/// Tokens that matter to the pack format, the op table, the references,
/// the placeholders and the metric grammar (their order fixes what a seed
/// makes).
// clang-format off
const char *const Vocabulary[] = {
    // TOML punctuation, quoting, escapes and spaces.
    "[", "]", "[[", "]]", "{", "}", "{{", "}}", "=", "\"", "'", "\"\"\"", "'''",
    ",", ".", "#", "\n", "\\", "\\u00e9", "\\n", " ", "\t", "\r\n",
    // Keys of a pack, a rule and a predicate.
    "pack", "rule", "id", "summary", "level", "stage", "match", "through",
    "where", "when", "message", "hint", "tags", "at", "pass", "enabled", "is",
    "not", "op", "layout", "with", "store", "to", "equals", "min", "max",
    "value", "rank", "name",
    // Predicates.
    "equivalent", "tmem-compatible", "cost", "in-loop", "loop-depth", "shape",
    "dtype", "attr", "target",
    // Op names and patterns.
    "ttg.convert_layout", "ttng.tmem_store", "arith.*", "tt.dot", "zz.q",
    // References and their fields.
    "match[0]", "match[1]", "match[99999]", "match[", ".src", ".dst",
    ".result[3]", ".operand[", ".shape", ".layout", ".cost", ".loop-depth",
    // Metrics and the expression grammar.
    "head.", "base.", "sass.", "ptx.", "staging", "tensor", "stagin", ".loop",
    ".total", "op(\"LDSM\")", "family(\"x\")", "registers", "and", "or", "not",
    "==", "!=", "<=", ">", "(", ")", "*", "/", "-", "+",
    // Numbers, booleans, dates and bytes of other encodings.
    "0", "2", "1e309", "-1", "99999999999999999999", "true", "false", "inf",
    "nan", "1979-05-27", "\xc3\xa9", "\xff", "\x01",
};
// clang-format on

std::string mutate(std::string S, std::mt19937 &Rng) {
  ArrayRef<const char *> V = Vocabulary;
  auto Pick = [&](size_t N) {
    return std::uniform_int_distribution<size_t>(0, N ? N - 1 : 0)(Rng);
  };
  unsigned Edits = 1 + Pick(4);
  for (unsigned E = 0; E < Edits; ++E) {
    size_t At = Pick(S.size() + 1);
    switch (Pick(6)) {
    case 0: // replace a byte
      if (!S.empty())
        S[std::min(At, S.size() - 1)] = static_cast<char>(Pick(256));
      break;
    case 1: { // delete a span
      size_t Len = 1 + Pick(16);
      if (At < S.size())
        S.erase(At, Len);
      break;
    }
    case 2: // insert a token
      S.insert(std::min(At, S.size()), V[Pick(V.size())]);
      break;
    case 3: { // duplicate a span
      size_t Len = 1 + Pick(40);
      if (At < S.size())
        S.insert(At, S.substr(At, Len));
      break;
    }
    case 4: { // replace a word by a token
      size_t End = S.find_first_of(" =\n\"[],{}.", At);
      if (End == std::string::npos)
        End = S.size();
      S.replace(std::min(At, S.size()), End - std::min(At, S.size()),
                V[Pick(V.size())]);
      break;
    }
    case 5: { // swap two lines
      SmallVector<StringRef, 64> Lines;
      StringRef(S).split(Lines, '\n');
      if (Lines.size() > 2) {
        std::vector<std::string> L(Lines.begin(), Lines.end());
        std::swap(L[Pick(L.size())], L[Pick(L.size())]);
        S = join(L, "\n");
      }
      break;
    }
    }
  }
  return S;
}

/// A random metric expression: a number, or with Condition a condition;
/// valid by construction (the grammar of docs/expressions.md, escaped for a
/// TOML basic string).
std::string randomExpr(std::mt19937 &Rng, bool Condition, unsigned Depth = 0) {
  auto Pick = [&](size_t N) {
    return std::uniform_int_distribution<size_t>(0, N - 1)(Rng);
  };
  static const char *Metrics[] = {"head.staging.loop",
                                  "base.staging.loop",
                                  "tensor",
                                  "sass.sync.total",
                                  "ptx.shared",
                                  "op(\\\"LDSM\\\")",
                                  "sass.op(\\\"[HQ]GMMA*\\\")",
                                  "registers",
                                  "base.stack",
                                  "instructions.loop",
                                  "other"};
  static const char *Cmp[] = {"<", "<=", ">", ">=", "==", "!="};
  static const char *Arith[] = {"+", "-", "*", "/"};
  if (!Condition) {
    if (Depth > 2 || Pick(3))
      return Pick(3) ? Metrics[Pick(std::size(Metrics))]
                     : std::to_string(Pick(100));
    std::string L = randomExpr(Rng, false, Depth + 1);
    std::string R = randomExpr(Rng, false, Depth + 1);
    return Pick(2) ? "(" + L + " " + Arith[Pick(4)] + " " + R + ")"
                   : L + " " + Arith[Pick(4)] + " " + R;
  }
  if (Depth > 2 || Pick(2))
    return randomExpr(Rng, false, Depth + 1) + " " + Cmp[Pick(6)] + " " +
           randomExpr(Rng, false, Depth + 1);
  switch (Pick(3)) {
  case 0:
    return "not " + randomExpr(Rng, true, Depth + 1);
  case 1:
    return "(" + randomExpr(Rng, true, Depth + 1) + ") and " +
           randomExpr(Rng, true, Depth + 1);
  default:
    return randomExpr(Rng, true, Depth + 1) + " or (" +
           randomExpr(Rng, true, Depth + 1) + ")";
  }
}

/// One token of the grammar (or a near miss) to break an expression with.
std::string corruptExpr(std::string E, std::mt19937 &Rng) {
  static const std::vector<std::string> Bad = {"stagin",
                                               "head.",
                                               ".",
                                               "(",
                                               ")",
                                               "==",
                                               "=",
                                               "!",
                                               "&",
                                               "|",
                                               "'",
                                               "\\\"",
                                               "\\\\",
                                               "op(",
                                               "family(\\\"zz\\\")",
                                               "sass.registers",
                                               "1e999",
                                               "not",
                                               "and",
                                               "<",
                                               "base.base.",
                                               "\\u0041",
                                               "  "};
  auto Pick = [&](size_t N) {
    return std::uniform_int_distribution<size_t>(0, N ? N - 1 : 0)(Rng);
  };
  size_t At = Pick(E.size() + 1);
  if (Pick(2))
    E.insert(std::min(At, E.size()), Bad[Pick(Bad.size())]);
  else if (At < E.size())
    E.erase(At, 1 + Pick(6));
  return E;
}

/// Replaces one `when = "..."` (and one `{...}` of a message) with a random
/// expression, corrupted half of the time.
std::string mutateExpressions(std::string S, std::mt19937 &Rng) {
  auto Pick = [&](size_t N) {
    return std::uniform_int_distribution<size_t>(0, N ? N - 1 : 0)(Rng);
  };
  std::vector<std::pair<size_t, size_t>> Whens;
  for (size_t Pos = 0; (Pos = S.find("when = \"", Pos)) != std::string::npos;) {
    size_t Begin = Pos + 8;
    size_t End = S.find('"', Begin);
    while (End != std::string::npos && S[End - 1] == '\\')
      End = S.find('"', End + 1);
    if (End == std::string::npos)
      break;
    Whens.push_back({Begin, End});
    Pos = End;
  }
  std::string E = randomExpr(Rng, /*Condition=*/true);
  if (Pick(2))
    E = corruptExpr(E, Rng);
  if (!Whens.empty()) {
    auto [Begin, End] = Whens[Pick(Whens.size())];
    S.replace(Begin, End - Begin, E);
  }
  // A metric placeholder of a count rule's message.
  size_t Msg = S.find("message = \"{");
  if (Msg != std::string::npos && Pick(2)) {
    size_t Open = Msg + 11, Close = S.find('}', Open);
    if (Close != std::string::npos && S.find('\n', Open) > Close) {
      std::string N = randomExpr(Rng, /*Condition=*/false);
      if (Pick(2))
        N = corruptExpr(N, Rng);
      S.replace(Open + 1, Close - Open - 1, N);
    }
  }
  return S;
}

/// A provider for count rules: every metric is 1 except staging (3).
class FixedProvider : public MetricProvider {
public:
  MetricValue value(const Metric &M) const override {
    if (M.Side == MetricSide::Base && M.Name == "tensor")
      return MetricValue::unknown("no baseline");
    return MetricValue::known(M.Name == "staging" ? 3 : 1, "sass");
  }
};

class RulePackFuzz : public testing::Test {
protected:
  static void SetUpTestSuite() {
    Expected<std::unique_ptr<TtgirModule>> M = parseTtgir(sourcePath(
        "tests/fixtures/sm100-attn-tmem-w8/regressed/attn_fwd.ttgir"));
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    Module = std::move(*M).release();
  }
  static void TearDownTestSuite() {
    delete Module;
    Module = nullptr;
  }

  /// Loads Text; checks that every problem is located inside it and that
  /// whatever loaded runs. Returns whether it loaded without problems.
  bool exercise(const std::string &Text, unsigned Seed) {
    PackLoad L = parseRulePack(Text, "fuzz.toml", FamilyTable::builtin());
    size_t Lines = StringRef(Text).count('\n') + 1;
    for (const PackProblem &P : L.Problems) {
      EXPECT_EQ(P.File, "fuzz.toml");
      EXPECT_GE(P.Line, 1u) << "seed " << Seed << ": " << P.Message << "\n"
                            << Text;
      EXPECT_LE(P.Line, Lines) << "seed " << Seed << ": " << P.Message;
      EXPECT_GE(P.Column, 1u) << "seed " << Seed << ": " << P.Message << "\n"
                              << Text;
      EXPECT_FALSE(P.Message.empty()) << "seed " << Seed;
      std::string Printed;
      raw_string_ostream OS(Printed);
      printPackProblem(OS, P);
      EXPECT_TRUE(StringRef(Printed).starts_with("fuzz.toml:"));
    }
    if (!L.Pack)
      return false;
    RuleMatcher Matcher(*Module, "cuda:100");
    FixedProvider P;
    for (const Rule &R : L.Pack->Rules) {
      EXPECT_FALSE(R.CheckId.empty());
      if (R.isPattern()) {
        for (const RuleMatch &Mt : Matcher.match(R, 100)) {
          EXPECT_LT(R.At, Mt.Ops.size());
          Matcher.render(R.Message, Mt, "k");
          if (R.Hint)
            Matcher.render(*R.Hint, Mt, "k");
        }
      } else {
        EXPECT_TRUE(R.When.has_value());
        if (!R.When)
          continue;
        R.When->evaluate(P);
        renderCountTemplate(R.Message, P, "k", "cuda:100");
      }
    }
    return L.Problems.empty();
  }

  static TtgirModule *Module;
};

TtgirModule *RulePackFuzz::Module = nullptr;

std::vector<std::string> realPacks() {
  return {readFile(sourcePath("checks/blackwell.toml")),
          readFile(sourcePath("checks/hopper.toml")),
          readFile(sourcePath("tests/lit/rules/Inputs/team.toml")),
          readFile(sourcePath("tests/lit/rules/Inputs/bad.toml"))};
}

TEST_F(RulePackFuzz, TheRealPacksLoad) {
  std::vector<std::string> Packs = realPacks();
  EXPECT_TRUE(exercise(Packs[0], 0));
  EXPECT_TRUE(exercise(Packs[1], 0));
  EXPECT_TRUE(exercise(Packs[2], 0));
  EXPECT_FALSE(exercise(Packs[3], 0)); // two located problems, one good rule
}

TEST_F(RulePackFuzz, RandomEditsGiveLocatedErrors) {
  std::vector<std::string> Packs = realPacks();
  unsigned Loaded = 0, Failed = 0;
  for (unsigned Seed = 1; Seed <= 4000; ++Seed) {
    std::mt19937 Rng(Seed);
    const std::string &Base = Packs[Seed % Packs.size()];
    (exercise(mutate(Base, Rng), Seed) ? Loaded : Failed)++;
    if (HasFailure())
      return;
  }
  // Both outcomes happen: the mutations reach past the TOML syntax.
  EXPECT_GT(Loaded, 100u);
  EXPECT_GT(Failed, 1000u);
}

TEST_F(RulePackFuzz, RandomExpressionsGiveLocatedErrors) {
  std::vector<std::string> Packs = realPacks();
  unsigned Loaded = 0, Failed = 0;
  for (unsigned Seed = 1; Seed <= 3000; ++Seed) {
    std::mt19937 Rng(Seed);
    // The good packs that have count rules.
    const std::string &Base = Packs[Seed % 2 ? 0 : 2];
    (exercise(mutateExpressions(Base, Rng), Seed) ? Loaded : Failed)++;
    if (HasFailure())
      return;
  }
  EXPECT_GT(Loaded, 50u);
  EXPECT_GT(Failed, 500u);
}

} // namespace
