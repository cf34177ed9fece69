//===- RulePackFuzzer.cpp - Fuzz target: a rule pack ----------------------===//
//
// Reads the input as a rule pack (docs/rules.md). Every problem is located
// in it; every rule that loads runs as `gestell check` would run it: a
// pattern rule on a real sm100 module (conversions feeding TMEM stores),
// its messages and hints rendered for each match; a count rule evaluated
// on fixed metric values, its message rendered. tests/unit/
// RulePackFuzzTest.cpp mutates the shipped packs the same way in-process.
//
//===----------------------------------------------------------------------===//
#include "FixedMetrics.h"
#include "FuzzSupport.h"

#include "gestell/Families.h"
#include "gestell/RuleCheck.h"
#include "gestell/RulePack.h"
#include "gestell/Ttgir.h"

#include "llvm/Support/raw_ostream.h"

using namespace gestell;
using namespace llvm;

static const TtgirModule &module() {
  static std::unique_ptr<TtgirModule> M = [] {
    Expected<std::unique_ptr<TtgirModule>> P = parseTtgir(GESTELL_FUZZ_MODULE);
    if (!P)
      fuzz::fail("cannot read the module rules run on: " +
                 toString(P.takeError()));
    return std::move(*P);
  }();
  return *M;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  PackLoad L = parseRulePack(Text, "fuzz.toml", FamilyTable::builtin());
  for (const PackProblem &P : L.Problems) {
    if (!StringRef(P.File).ends_with("fuzz.toml"))
      fuzz::fail("a problem names '" + P.File + "': " + P.Message);
    if (P.Line && !fuzz::insideText(Text, P.Line, P.Column))
      fuzz::fail("a problem at " + Twine(P.Line) + ":" + Twine(P.Column) +
                 ", outside the pack: " + P.Message);
    printPackProblem(nulls(), P);
  }
  if (!L.Pack)
    return 0;
  RuleMatcher Matcher(module(), "cuda:100");
  fuzz::FixedMetrics Metrics;
  for (const Rule &R : L.Pack->Rules) {
    if (R.isPattern()) {
      for (const RuleMatch &M : Matcher.match(R, /*MaxMatches=*/64)) {
        (void)Matcher.render(R.Message, M, "k");
        if (R.Hint)
          (void)Matcher.render(*R.Hint, M, "k");
      }
    } else if (R.When) {
      (void)R.When->evaluate(Metrics);
      (void)renderCountTemplate(R.Message, Metrics, "k", "cuda:100");
    }
  }
  return 0;
}
