//===- ExprFuzzer.cpp - Fuzz target: a metric expression ------------------===//
//
// Reads the input as an expression of docs/expressions.md (a --fail-on
// gate, a count rule's `when`). Expr::str() promises canonical text that
// parses back to the same expression: the same text again, a condition
// exactly when the original is, the same metrics, the same value.
//
//===----------------------------------------------------------------------===//
#include "FixedMetrics.h"
#include "FuzzSupport.h"

#include "gestell/Expr.h"
#include "gestell/Families.h"

#include "llvm/Support/raw_ostream.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  const FamilyTable &Families = FamilyTable::builtin();
  Expected<Expr> E = Expr::parse(Text, Families, "fuzz.expr");
  if (!E) {
    fuzz::expectInputError(E.takeError(), "fuzz.expr", Text,
                           fuzz::Position::InText);
    // The same error as `gestell diff --fail-on` shows it, with a caret.
    Expected<Expr> Again = Expr::parse(Text, Families, "fuzz.expr");
    if (Again)
      fuzz::fail("parsing '" + Text + "' fails once and succeeds once");
    printExprError(nulls(), Again.takeError(), Text);
    return 0;
  }
  if (E->text() != Text)
    fuzz::fail("an expression does not keep its text");
  std::string Printed = E->str();
  Expected<Expr> Back = Expr::parse(Printed, Families, "printed");
  if (!Back)
    fuzz::fail("'" + Text + "' prints as '" + Printed +
               "', which does not parse: " + toString(Back.takeError()));
  if (Back->str() != Printed)
    fuzz::fail("'" + Text + "' prints as '" + Printed + "', which prints as '" +
               Back->str() + "'");
  if (Back->isCondition() != E->isCondition())
    fuzz::fail("'" + Text + "' and its printed form '" + Printed +
               "' differ in being a condition");
  if (Back->metrics().size() != E->metrics().size())
    fuzz::fail("'" + Text + "' and its printed form '" + Printed +
               "' name different metrics");
  for (size_t I = 0; I < E->metrics().size(); ++I)
    if (E->metrics()[I].str() != Back->metrics()[I].str())
      fuzz::fail("'" + Text + "' and its printed form '" + Printed +
                 "' name different metrics");
  fuzz::FixedMetrics P;
  fuzz::expectSameResult(E->evaluate(P), Back->evaluate(P), Text);
  Expected<Expr> C = Expr::parseCondition(Text, Families, "fuzz.expr");
  if (bool(C) != E->isCondition())
    fuzz::fail("parseCondition disagrees with isCondition on '" + Text + "'");
  if (!C)
    fuzz::expectInputError(C.takeError(), "fuzz.expr", Text,
                           fuzz::Position::InText);
  return 0;
}
