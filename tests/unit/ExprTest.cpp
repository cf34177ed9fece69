//===- ExprTest.cpp - The metric expression grammar -----------------------===//
//
// Parsing, canonical printing, three-valued evaluation, errors that point at
// a column with "did you mean", and random input that must never crash.
//
//===----------------------------------------------------------------------===//
#include "gestell/Expr.h"
#include "gestell/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <random>

using namespace gestell;
using namespace llvm;

namespace {

const FamilyTable &families() { return FamilyTable::builtin(); }

/// Values by canonical metric spelling; anything else is unknown.
class MapProvider : public MetricProvider {
public:
  StringMap<double> Values;
  MetricValue value(const Metric &M) const override {
    auto It = Values.find(M.str());
    if (It == Values.end())
      return MetricValue::unknown("not in the test map");
    return MetricValue::known(It->second, "sass");
  }
};

Expr parseOk(StringRef Text) {
  Expected<Expr> E = Expr::parse(Text, families(), "--fail-on");
  if (!E) {
    ADD_FAILURE() << "parse failed: " << toString(E.takeError());
    return *Expr::parse("1", families());
  }
  return *E;
}

/// The error message ("--fail-on:1:COL: message") of a text that must fail.
std::string parseError(StringRef Text) {
  Expected<Expr> E = Expr::parse(Text, families(), "--fail-on");
  if (E) {
    ADD_FAILURE() << "parsed: " << Text.str();
    return "";
  }
  return toString(E.takeError());
}

ExprResult::Truth truth(StringRef Text, const MetricProvider &P) {
  return parseOk(Text).evaluate(P).T;
}

} // namespace

TEST(ExprTest, IssueExampleParsesAndPrintsBack) {
  StringRef Text = "head.staging.loop > 2 * base.staging.loop and "
                   "head.tensor.loop == base.tensor.loop";
  Expr E = parseOk(Text);
  EXPECT_TRUE(E.isCondition());
  EXPECT_TRUE(E.usesBase());
  EXPECT_EQ(E.str(), Text);
  ASSERT_EQ(E.metrics().size(), 4u);
  EXPECT_EQ(E.metrics()[1].Side, MetricSide::Base);
  EXPECT_EQ(E.metrics()[1].Column, 25u);
  EXPECT_TRUE(E.metrics()[0].InLoops);
  EXPECT_EQ(E.metrics()[0].Family, *families().indexOf("staging"));
}

TEST(ExprTest, BareMetricsReadTheHeadAndTotal) {
  Expr E = parseOk("staging");
  EXPECT_FALSE(E.isCondition());
  EXPECT_FALSE(E.usesBase());
  EXPECT_EQ(E.str(), "head.staging");
  EXPECT_EQ(parseOk("sass.sync.total").str(), "head.sass.sync");
  EXPECT_EQ(parseOk("base.ptx.tensor.loop").str(), "base.ptx.tensor.loop");
  EXPECT_EQ(parseOk("family(\"tma\")").str(), "head.tma");
  EXPECT_EQ(parseOk("registers").str(), "head.registers");
  EXPECT_EQ(parseOk("base.shared_dynamic").metrics()[0].Res,
            Resource::SharedDynamic);
}

TEST(ExprTest, PrintsOnlyTheParenthesesItNeeds) {
  EXPECT_EQ(parseOk("(1 + 2) * 3 == 9").str(), "(1 + 2) * 3 == 9");
  EXPECT_EQ(parseOk("((1) + (2 * 3)) == 7").str(), "1 + 2 * 3 == 7");
  EXPECT_EQ(parseOk("1 - (2 - 3) < 9").str(), "1 - (2 - 3) < 9");
  EXPECT_EQ(parseOk("(1 - 2) - 3 < 9").str(), "1 - 2 - 3 < 9");
  EXPECT_EQ(parseOk("not (1 < 2 and 2 < 3)").str(), "not (1 < 2 and 2 < 3)");
  EXPECT_EQ(parseOk("(1<2 or 2<3) and 3<4").str(),
            "(1 < 2 or 2 < 3) and 3 < 4");
  EXPECT_EQ(parseOk("- -3 < 0.5").str(), "--3 < 0.5");
  EXPECT_EQ(parseOk("-(1+2) < 0").str(), "-(1 + 2) < 0");
}

TEST(ExprTest, CanonicalTextParsesToItself) {
  for (StringRef Text :
       {"head.staging.loop > 2 * base.staging.loop",
        "not sass.op(\"LDSM\").loop == ptx.op(\"ldmatrix.sync.aligned.m8n8."
        "x1.shared.b16\")",
        "op(\"UTC*MMA*\") / 2 >= 1.25 or registers - base.registers > 8",
        "family(\"sync\").loop * (1 + 2) != instructions - other"}) {
    std::string Once = parseOk(Text).str();
    EXPECT_EQ(parseOk(Once).str(), Once) << Text.str();
  }
}

TEST(ExprTest, ArithmeticAndLogic) {
  MapProvider P;
  using T = ExprResult::Truth;
  EXPECT_EQ(truth("1 + 2 * 3 == 7", P), T::True);
  EXPECT_EQ(truth("(1 + 2) * 3 == 7", P), T::False);
  EXPECT_EQ(truth("7 / 2 == 3.5", P), T::True);
  EXPECT_EQ(truth("10 - 4 - 3 == 3", P), T::True);
  EXPECT_EQ(truth("-2 * -3 == 6", P), T::True);
  EXPECT_EQ(truth("not 1 < 2 or 2 <= 2", P), T::True);
  EXPECT_EQ(truth("not (1 < 2 or 2 <= 2)", P), T::False);
  EXPECT_EQ(truth("1 != 1 or 2 >= 3 or 3 > 2 and 1 == 1", P), T::True);
  Expr N = parseOk("6 / 4");
  EXPECT_EQ(*N.evaluate(P).Number, 1.5);
}

TEST(ExprTest, MetricsComeFromTheProvider) {
  MapProvider P;
  P.Values["head.staging.loop"] = 296;
  P.Values["base.staging.loop"] = 40;
  P.Values["head.tensor.loop"] = 128;
  P.Values["base.tensor.loop"] = 128;
  Expr E = parseOk("head.staging.loop > 2 * base.staging.loop and "
                   "tensor.loop == base.tensor.loop");
  ExprResult R = E.evaluate(P);
  EXPECT_TRUE(R.holds());
  ASSERT_EQ(R.Used.size(), 4u);
  EXPECT_EQ(R.Used[0].first, "head.staging.loop");
  EXPECT_EQ(*R.Used[0].second.Value, 296);
  EXPECT_EQ(R.Used[0].second.Stage, "sass");
  P.Values["head.staging.loop"] = 80;
  EXPECT_EQ(E.evaluate(P).T, ExprResult::Truth::False);
}

TEST(ExprTest, UnknownIsNeitherTrueNorFalse) {
  MapProvider P;
  P.Values["head.staging"] = 3;
  using T = ExprResult::Truth;
  ExprResult R = parseOk("head.staging > base.staging").evaluate(P);
  EXPECT_EQ(R.T, T::Unknown);
  EXPECT_FALSE(R.holds());
  EXPECT_NE(R.WhyUnknown.find("base.staging: not in the test map"),
            std::string::npos)
      << R.WhyUnknown;
  EXPECT_EQ(truth("1 > 2 and base.staging > 1", P), T::False);
  EXPECT_EQ(truth("base.staging > 1 and 1 > 2", P), T::False);
  EXPECT_EQ(truth("1 < 2 or base.staging > 1", P), T::True);
  EXPECT_EQ(truth("1 < 2 and base.staging > 1", P), T::Unknown);
  EXPECT_EQ(truth("not base.staging > 1", P), T::Unknown);
  ExprResult Div = parseOk("staging / 0 > 1").evaluate(P);
  EXPECT_EQ(Div.T, T::Unknown);
  EXPECT_EQ(Div.WhyUnknown, "division by zero");
}

TEST(ExprTest, OpcodePatterns) {
  Expr E = parseOk("op(\"LDSM\") + op(\"ldmatrix.sync.aligned.m8n8.x1.shared."
                   "b16\") + op(\"UTC?MMA*\") + op(\"*\") > 0");
  ArrayRef<Metric> M = E.metrics();
  ASSERT_EQ(M.size(), 4u);
  EXPECT_TRUE(M[0].matchesOpcode("LDSM"));
  EXPECT_TRUE(M[0].matchesOpcode("LDSM.16.M88.4"));
  EXPECT_FALSE(M[0].matchesOpcode("LDSMX"));
  EXPECT_FALSE(M[0].matchesOpcode("LDS"));
  EXPECT_EQ(M[0].opcodeStage(), MetricStage::SASS);
  EXPECT_TRUE(M[1].matchesOpcode("ldmatrix.sync.aligned.m8n8.x1.shared.b16"));
  EXPECT_FALSE(M[1].matchesOpcode("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_EQ(M[1].opcodeStage(), MetricStage::PTX);
  EXPECT_TRUE(M[2].matchesOpcode("UTCHMMA.2CTA"));
  EXPECT_FALSE(M[2].matchesOpcode("UTCBAR"));
  EXPECT_EQ(M[3].opcodeStage(), MetricStage::Default);
  EXPECT_EQ(parseOk("op(\"a\\\"b\") > 0").metrics()[0].Name, "a\"b");
}

TEST(ExprTest, ErrorsPointAtTheColumn) {
  EXPECT_EQ(parseError("head.staging.loop > 2 * base.stagin.loop"),
            "--fail-on:1:30: unknown family 'stagin'; did you mean "
            "'staging'?");
  EXPECT_EQ(parseError("hed.staging > 1"),
            "--fail-on:1:1: unknown family 'hed'; did you mean 'head'?");
  EXPECT_EQ(parseError("staging.loops > 1"),
            "--fail-on:1:9: expected 'loop' or 'total' after '.', found "
            "'loops'; did you mean 'loop'?");
  EXPECT_EQ(parseError("staging = 1"),
            "--fail-on:1:9: unexpected '='; did you mean '=='?");
  EXPECT_EQ(parseError("1 < 2 && 2 < 3"),
            "--fail-on:1:7: unexpected '&'; write 'and'");
  EXPECT_EQ(parseError("1 < 2 < 3"),
            "--fail-on:1:7: comparisons do not chain; join them with 'and'");
  EXPECT_EQ(parseError("staging and 1 < 2"),
            "--fail-on:1:1: expected a condition (a comparison) here, found a "
            "number");
  EXPECT_EQ(parseError("1 + (2 < 3) > 0"),
            "--fail-on:1:5: expected a number here, found a condition");
  EXPECT_EQ(parseError("(1 < 2"),
            "--fail-on:1:7: expected ')' to close the '(' at column 1, found "
            "the end of the expression");
  EXPECT_EQ(parseError("1 < 2 )"),
            "--fail-on:1:7: unexpected ')' after the expression");
  EXPECT_EQ(parseError(""), "--fail-on:1:1: expected an expression");
  EXPECT_EQ(parseError("op(LDSM) > 1"),
            "--fail-on:1:4: op(...) takes one string in double quotes, found "
            "'LDSM'");
  EXPECT_EQ(parseError("op(\"LDSM) > 1"), "--fail-on:1:4: unterminated string");
  EXPECT_EQ(parseError("sass.op(\"ldmatrix\") > 1"),
            "--fail-on:1:6: op(\"ldmatrix\") is a PTX opcode, but the metric "
            "reads sass");
  EXPECT_EQ(parseError("sass.registers > 1"),
            "--fail-on:1:1: 'registers' is a resource of the kernel; it has no "
            "stage (drop 'ptx.'/'sass.')");
  EXPECT_EQ(parseError("registers.loop > 1"),
            "--fail-on:1:11: 'registers' is a resource of the kernel; it has "
            "no '.loop'");
  EXPECT_EQ(parseError("base > 1"),
            "--fail-on:1:5: expected '.' and a metric after 'base'");
  EXPECT_EQ(parseError("family(\"stagng\") > 1"),
            "--fail-on:1:1: unknown family 'stagng'; did you mean 'staging'?");
  EXPECT_EQ(parseError("2x > 1"),
            "--fail-on:1:2: expected an operator after the number '2'");
  EXPECT_EQ(parseError("1 >\n  bogus"),
            "--fail-on:2:3: unknown family 'bogus'");
  EXPECT_EQ(parseError("99999999999999999999999999999999999999999999999999999"
                       "99999999999999999999999999999999999999999999999999999"
                       "99999999999999999999999999999999999999999999999999999"
                       "99999999999999999999999999999999999999999999999999999"
                       "99999999999999999999999999999999999999999999999999999"
                       "99999999999999999999999999999999999999999999999999999"
                       " > 1"),
            "--fail-on:1:1: number out of range");
  EXPECT_EQ(parseError("1 > \x01"), "--fail-on:1:5: unexpected byte 0x01");
  EXPECT_EQ(parseError("op(\"LDS[\") > 0")
                .rfind("--fail-on:1:1: bad opcode pattern \"LDS[\": ", 0),
            0u);
}

TEST(ExprTest, ConditionsOnly) {
  Expected<Expr> E = Expr::parseCondition("  staging * 2", families(), "gate");
  ASSERT_FALSE(static_cast<bool>(E));
  EXPECT_EQ(toString(E.takeError()),
            "gate:1:3: expected a condition (a comparison such as "
            "'head.staging.loop > base.staging.loop'), found a number");
  EXPECT_TRUE(static_cast<bool>(
      Expr::parseCondition("staging > 2", families(), "gate")));
}

TEST(ExprTest, ErrorPrintsACaret) {
  StringRef Text = "head.staging.loop > 2 * base.stagin.loop";
  std::string Out;
  raw_string_ostream OS(Out);
  printExprError(OS, Expr::parse(Text, families(), "--fail-on").takeError(),
                 Text);
  EXPECT_EQ(Out, "--fail-on:1:30: error: unknown family 'stagin'; did you "
                 "mean 'staging'?\n"
                 "head.staging.loop > 2 * base.stagin.loop\n"
                 "                             ^\n");
}

TEST(ExprTest, DeepNestingIsAnErrorNotACrash) {
  for (StringRef Unit : {"(", "not ", "-", "not (-("}) {
    std::string Text;
    for (int I = 0; I < 100000; ++I)
      Text += Unit;
    Text += "1";
    Expected<Expr> E = Expr::parse(Text, families());
    ASSERT_FALSE(static_cast<bool>(E)) << Unit.str();
    EXPECT_NE(toString(E.takeError()).find("nested too deeply"),
              std::string::npos);
  }
  // Chains parse without recursion, but evaluating and printing walk the
  // tree (a chain nests to the left): 900 terms are fine, 20000 are a
  // located error, never a stack overflow.
  std::string Long = "1";
  for (int I = 0; I < 900; ++I)
    Long += " + 1";
  Long += " == 901";
  MapProvider P;
  Expr Ok = parseOk(Long);
  EXPECT_TRUE(Ok.evaluate(P).holds());
  EXPECT_EQ(Ok.str(), Long);
  std::string TooLong = "1";
  for (int I = 0; I < 20000; ++I)
    TooLong += " + 1";
  Expected<Expr> E = Expr::parse(TooLong, families());
  ASSERT_FALSE(static_cast<bool>(E));
  EXPECT_NE(toString(E.takeError()).find("expression too long"),
            std::string::npos);
}

TEST(ExprTest, RandomInputNeverCrashes) {
  // Token soup biased toward almost-valid expressions, and raw bytes.
  static const char *Pieces[] = {"head",
                                 "base",
                                 ".",
                                 "staging",
                                 "tensor",
                                 "loop",
                                 "total",
                                 "sass",
                                 "ptx",
                                 "op",
                                 "(",
                                 ")",
                                 "\"LDSM\"",
                                 "\"",
                                 "*",
                                 "/",
                                 "+",
                                 "-",
                                 "<",
                                 "<=",
                                 ">",
                                 ">=",
                                 "==",
                                 "!=",
                                 "and",
                                 "or",
                                 "not",
                                 "1",
                                 "2.5",
                                 "0",
                                 " ",
                                 "registers",
                                 "family",
                                 "\"sync\"",
                                 "=",
                                 "!",
                                 "&",
                                 "\n",
                                 "\\",
                                 "x",
                                 "instructions",
                                 "other",
                                 "op(\"*\")",
                                 "stagin",
                                 "\x80",
                                 "\t"};
  std::mt19937 Rng(12345);
  MapProvider P;
  P.Values["head.staging"] = 4;
  P.Values["base.staging"] = 0;
  unsigned Parsed = 0;
  for (int Iter = 0; Iter < 30000; ++Iter) {
    std::string Text;
    if (Iter % 5 == 0) {
      int N = Rng() % 40;
      for (int I = 0; I < N; ++I)
        Text += static_cast<char>(Rng() % 256);
    } else {
      int N = 1 + Rng() % 12;
      for (int I = 0; I < N; ++I)
        Text += Pieces[Rng() % std::size(Pieces)];
    }
    Expected<Expr> E = Expr::parse(Text, families(), "fuzz");
    if (!E) {
      std::string Msg = toString(E.takeError());
      EXPECT_EQ(Msg.rfind("fuzz:", 0), 0u) << Msg;
      continue;
    }
    ++Parsed;
    ExprResult R = E->evaluate(P);
    (void)R;
    std::string Canon = E->str();
    Expected<Expr> Again = Expr::parse(Canon, families(), "fuzz");
    ASSERT_TRUE(static_cast<bool>(Again))
        << Text << " -> " << Canon << ": " << toString(Again.takeError());
    EXPECT_EQ(Again->str(), Canon);
  }
  EXPECT_GT(Parsed, 100u); // the soup does produce valid expressions
}
