//===- LayoutFuzzer.cpp - Fuzz target: a layout attribute's text ----------===//
//
// Reads the input as an encoding attribute ("#ttg.blocked<{...}>", what a
// rule-pack fixture or a test writes) with parseLayoutText. A layout that
// reads must read back from its canonical text, with the same linear
// layout on a few shapes of its rank, and its linear layout must convert
// to itself at no cost.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "LayoutReadBack.h"

#include "gestell/Layout.h"

#include "llvm/ADT/SmallVector.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  Expected<Layout> L = parseLayoutText(Text);
  if (!L) {
    // The text is read inside a module of its own: the position is in it.
    fuzz::expectInputError(L.takeError(), "<layout>", "",
                           fuzz::Position::Unchecked);
    return 0;
  }
  fuzz::checkLayoutReadsBack(*L, {});
  unsigned Rank = L->rank();
  if (!L->isDistributed() || Rank == 0 || Rank > 4)
    return 0;
  for (int64_t Dim : {1, 16, 128}) {
    SmallVector<int64_t, 4> Shape(Rank, Dim);
    fuzz::checkLayoutReadsBack(*L, Shape);
    Expected<ConversionAnalysis> A = analyzeConversion(*L, *L, Shape);
    if (!A) {
      consumeError(A.takeError());
      continue;
    }
    if (A->Cost != ConversionCost::Registers || !A->MovingDims.empty())
      fuzz::fail("converting " + L->canonicalText() +
                 " to itself is not free: " + costName(A->Cost));
  }
  return 0;
}
