//===- TtgirFuzzer.cpp - Fuzz target: a .ttgir module ---------------------===//
//
// Reads the input as a .ttgir file, then does what `gestell stats` and the
// layout checks do with a module: verifies its layouts, reports its
// conversions and loops, and judges which conversions are redundant. Every
// encoding of every value must read back from its canonical text.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "LayoutReadBack.h"

#include "gestell/Layout.h"
#include "gestell/utils/ModuleConversions.h"
#include "gestell/Ttgir.h"
#include "gestell/TtgirReport.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace gestell;
using namespace llvm;

static void checkEncodings(const TtgirModule &M) {
  auto Check = [&](const Value *V) {
    if (!V || !V->Ty || !V->Ty->Encoding)
      return;
    Expected<Layout> L = parseLayout(*V->Ty->Encoding, M);
    if (!L) {
      fuzz::expectInputError(L.takeError(), "fuzz.ttgir", M.text(),
                             fuzz::Position::InText);
      return;
    }
    fuzz::checkLayoutReadsBack(*L, V->Ty->Shape);
    (void)canonicalLayoutText(*V->Ty->Encoding, M);
  };
  for (const Operation *Op : M.ops()) {
    for (const Value *R : Op->Results)
      Check(R);
    for (const Region *Reg : Op->Regions)
      for (const Block *B : Reg->Blocks)
        for (const Value *A : B->Args)
          Check(A);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  Expected<std::unique_ptr<TtgirModule>> M = parseTtgirText(Text, "fuzz.ttgir");
  if (!M) {
    fuzz::expectInputError(M.takeError(), "fuzz.ttgir", Text,
                           fuzz::Position::InText);
    return 0;
  }
  if (Error E = verifyLayouts(**M))
    fuzz::expectInputError(std::move(E), "fuzz.ttgir", Text,
                           fuzz::Position::InText);
  TtgirReport R = reportTtgir(**M);
  json::OStream J(nulls());
  J.object([&] {
    J.attributeBegin("conversions");
    writeConversionsJson(J, R);
    J.attributeEnd();
    J.attributeBegin("ttgir");
    writeTtgirJson(J, R);
    J.attributeEnd();
  });
  ModuleConversions Convs(**M);
  (void)findRedundantConversions(Convs);
  checkEncodings(**M);
  return 0;
}
